/**
 * Groups: every route under `/group`; the id goes in the `groupJid` query, `@g.us` appended when missing.
 *
 * @module
 */

import type { RequestInput } from "../dto/request_dto.ts";
import type { ApiResponse } from "../client/response.ts";
import { type BodySpec, readBody } from "../dto/body_spec.ts";
import { CreateGroupDto } from "../dto/create_group.ts";
import { groupJid, inviteCode } from "./args.ts";
import {
  GROUP_DESCRIPTION_BODY,
  GROUP_EPHEMERAL_BODY,
  GROUP_INVITE_BODY,
  GROUP_JID_BODY,
  GROUP_PARTICIPANTS_BODY,
  GROUP_PICTURE_BODY,
  GROUP_SETTING_BODY,
  GROUP_SUBJECT_BODY,
} from "./bodies.ts";
import { type CallOptions, Resource } from "./resource.ts";
import { ROUTE, type RouteEntry } from "./routes.ts";
import type {
  GroupInfo,
  GroupSettingAction,
  InviteCodeResponse,
  ParticipantAction,
  UpdateResult,
} from "./types.ts";

/**
 * Groups: create, rename, describe, picture, members, admins, invites, settings, leave.
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * const group = (await gw.groups().create("Team", ["5511999999999"])).data;
 * await gw.groups().addParticipants(group.id, ["5511888888888"]);
 * ```
 */
export class GroupsResource extends Resource {
  /** Create a group (`POST /group/create`). */
  async create(
    subject: string | RequestInput<CreateGroupDto> | CreateGroupDto,
    participants?: string[],
    description?: string,
    options?: CallOptions & { promoteParticipants?: boolean },
  ): Promise<ApiResponse<GroupInfo>> {
    const { promoteParticipants, ...call } = options ?? {};
    const dto = typeof subject === "string"
      ? CreateGroupDto.from({ subject, participants: participants!, description, promoteParticipants })
      : CreateGroupDto.from(subject);
    return await this.call(ROUTE.group.create, { body: dto.toJSON() }, call);
  }

  /** Validate `input` with `spec`, then POST its `groupJid` in the query (where the server reads it) and the rest as the body. */
  async #post<T>(
    route: RouteEntry,
    spec: BodySpec,
    input: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<ApiResponse<T>> {
    const { groupJid, ...body } = readBody(spec, input);
    return await this.call<T>(route, { query: { groupJid: groupJid as string }, body }, options);
  }

  async #get<T>(
    route: RouteEntry,
    query: Record<string, string>,
    options?: CallOptions,
  ): Promise<ApiResponse<T>> {
    return await this.call<T>(route, { query }, options);
  }

  /** Rename a group (`POST /group/updateGroupSubject`). */
  async updateSubject(
    jid: string,
    subject: string,
    options?: CallOptions,
  ): Promise<ApiResponse<UpdateResult>> {
    return await this.#post(
      ROUTE.group.updateGroupSubject,
      GROUP_SUBJECT_BODY,
      { groupJid: jid, subject },
      options,
    );
  }

  /** Change the group picture (`POST /group/updateGroupPicture`; URL or raw base64). */
  async updatePicture(jid: string, image: string, options?: CallOptions): Promise<ApiResponse<UpdateResult>> {
    return await this.#post(
      ROUTE.group.updateGroupPicture,
      GROUP_PICTURE_BODY,
      { groupJid: jid, image },
      options,
    );
  }

  /** Change the group description (`POST /group/updateGroupDescription`). */
  async updateDescription(
    jid: string,
    description: string,
    options?: CallOptions,
  ): Promise<ApiResponse<UpdateResult>> {
    return await this.#post(ROUTE.group.updateGroupDescription, GROUP_DESCRIPTION_BODY, {
      groupJid: jid,
      description,
    }, options);
  }

  /** A group's metadata (`GET /group/findGroupInfos?groupJid=`). */
  async findInfo(jid: string, options?: CallOptions): Promise<ApiResponse<GroupInfo>> {
    return await this.#get(ROUTE.group.findGroupInfos, { groupJid: groupJid(jid) }, options);
  }

  /** Every group the instance is in (`GET /group/fetchAllGroups?getParticipants=`). */
  async fetchAllGroups(
    options: CallOptions & { getParticipants?: boolean } = {},
  ): Promise<ApiResponse<GroupInfo[]>> {
    const { getParticipants = false, ...call } = options;
    return await this.#get(
      ROUTE.group.fetchAllGroups,
      { getParticipants: String(getParticipants) },
      call,
    );
  }

  /** A group's members (`GET /group/participants?groupJid=`). */
  async participants(
    jid: string,
    options?: CallOptions,
  ): Promise<ApiResponse<{ participants: { id: string; admin?: string | null; [key: string]: unknown }[] }>> {
    return await this.#get(ROUTE.group.participants, { groupJid: groupJid(jid) }, options);
  }

  /** A group's invite link (`GET /group/inviteCode?groupJid=`). */
  async inviteCode(jid: string, options?: CallOptions): Promise<ApiResponse<InviteCodeResponse>> {
    return await this.#get(ROUTE.group.inviteCode, { groupJid: groupJid(jid) }, options);
  }

  /** Revoke the invite link and get a new one (`POST /group/revokeInviteCode`). */
  async revokeInviteCode(
    jid: string,
    options?: CallOptions,
  ): Promise<ApiResponse<{ revoked: boolean; inviteCode: string }>> {
    return await this.#post(ROUTE.group.revokeInviteCode, GROUP_JID_BODY, { groupJid: jid }, options);
  }

  /** Send the invite link to numbers (`POST /group/sendInvite`; the group id goes in the body here). */
  async sendInvite(
    jid: string,
    numbers: string[],
    description: string,
    options?: CallOptions,
  ): Promise<ApiResponse<{ send: boolean; inviteUrl: string }>> {
    const body = readBody(GROUP_INVITE_BODY, { groupJid: jid, description, numbers });
    return await this.call(ROUTE.group.sendInvite, { body }, options);
  }

  /** What an invite code (or chat.whatsapp.com link) leads to (`GET /group/inviteInfo`). */
  async inviteInfo(code: string, options?: CallOptions): Promise<ApiResponse<Record<string, unknown>>> {
    return await this.#get(ROUTE.group.inviteInfo, { inviteCode: inviteCode(code) }, options);
  }

  /** Join a group by invite code (`GET /group/acceptInviteCode?inviteCode=`). */
  async acceptInvite(
    code: string,
    options?: CallOptions,
  ): Promise<ApiResponse<{ accepted: boolean; groupJid: string }>> {
    return await this.call(ROUTE.group.acceptInviteCode, {
      query: { inviteCode: inviteCode(code) },
    }, options);
  }

  /** Add, remove, promote or demote members (`POST /group/updateParticipant`). */
  async updateParticipant(
    jid: string,
    action: ParticipantAction,
    participants: string[],
    options?: CallOptions,
  ): Promise<ApiResponse<{ updateParticipants: unknown[] }>> {
    return await this.#post(ROUTE.group.updateParticipant, GROUP_PARTICIPANTS_BODY, {
      groupJid: jid,
      action,
      participants,
    }, options);
  }

  /** Add members (`updateParticipant` with `add`). */
  async addParticipants(
    jid: string,
    participants: string[],
    options?: CallOptions,
  ): Promise<ApiResponse<{ updateParticipants: unknown[] }>> {
    return await this.updateParticipant(jid, "add", participants, options);
  }

  /** Remove members (`updateParticipant` with `remove`). */
  async removeParticipants(
    jid: string,
    participants: string[],
    options?: CallOptions,
  ): Promise<ApiResponse<{ updateParticipants: unknown[] }>> {
    return await this.updateParticipant(jid, "remove", participants, options);
  }

  /** Make members admins (`updateParticipant` with `promote`). */
  async promoteParticipants(
    jid: string,
    participants: string[],
    options?: CallOptions,
  ): Promise<ApiResponse<{ updateParticipants: unknown[] }>> {
    return await this.updateParticipant(jid, "promote", participants, options);
  }

  /** Take admin rights away (`updateParticipant` with `demote`). */
  async demoteParticipants(
    jid: string,
    participants: string[],
    options?: CallOptions,
  ): Promise<ApiResponse<{ updateParticipants: unknown[] }>> {
    return await this.updateParticipant(jid, "demote", participants, options);
  }

  /**
   * Who may send and edit (`POST /group/updateSetting`): `announcement` (admins only send),
   * `not_announcement`, `locked` (admins only edit), `unlocked`.
   */
  async updateSettings(
    jid: string,
    action: GroupSettingAction,
    options?: CallOptions,
  ): Promise<ApiResponse<{ updateSetting: unknown }>> {
    return await this.#post(
      ROUTE.group.updateSetting,
      GROUP_SETTING_BODY,
      { groupJid: jid, action },
      options,
    );
  }

  /** Disappearing messages (`POST /group/toggleEphemeral`): 0 (off), 86400, 604800 or 7776000 seconds. */
  async toggleEphemeral(
    jid: string,
    expiration: number,
    options?: CallOptions,
  ): Promise<ApiResponse<{ success: boolean }>> {
    return await this.#post(
      ROUTE.group.toggleEphemeral,
      GROUP_EPHEMERAL_BODY,
      { groupJid: jid, expiration },
      options,
    );
  }

  /** Leave a group (`DELETE /group/leaveGroup?groupJid=`). */
  async leave(
    jid: string,
    options?: CallOptions,
  ): Promise<ApiResponse<{ groupJid: string; leave: boolean }>> {
    return await this.call(ROUTE.group.leaveGroup, {
      query: { groupJid: groupJid(jid) },
    }, options);
  }
}
