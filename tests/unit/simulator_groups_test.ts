import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { call, createInstance, newSim, openInstance } from "../helpers/simulator.ts";

const OWNER = "5511988887777@s.whatsapp.net";
const MEMBER = "5511911112222";

async function withGroup() {
  const sim = newSim();
  await openInstance(sim);
  const res = await call(sim, "POST", "/group/create/sales", { subject: "Team", participants: [MEMBER] });
  return { sim, group: res };
}

Deno.test("simulator: group create answers 201 with the metadata and emits groups.upsert", async () => {
  const { sim, group } = await withGroup();
  strictEqual(group.status, 201);
  ok(/^120363\d{12}@g\.us$/.test(group.body.id), group.body.id);
  strictEqual(group.body.subject, "Team");
  strictEqual(group.body.owner, OWNER);
  strictEqual(group.body.size, 2);
  deepStrictEqual(group.body.participants, [
    { id: OWNER, admin: "superadmin" },
    { id: `${MEMBER}@s.whatsapp.net`, admin: null },
  ]);
  strictEqual(sim.events.at(-1)?.event, "groups.upsert");
  await sim.close();
});

Deno.test("simulator: group create validates like dataValidate (nested strings)", async () => {
  const sim = newSim();
  await openInstance(sim);
  const res = await call(sim, "POST", "/group/create/sales", { participants: ["123"] });
  strictEqual(res.status, 400);
  deepStrictEqual(res.body.response.message, [[
    '"participants" must be an array of numeric strings',
    'instance requires property "subject"',
  ]]);
  await sim.close();
});

Deno.test("simulator: groupJid comes from the query or the body, with @g.us appended", async () => {
  const { sim, group } = await withGroup();
  const bare = group.body.id.replace("@g.us", "");
  const fromQuery = await call(sim, "GET", `/group/findGroupInfos/sales?groupJid=${bare}`);
  strictEqual(fromQuery.status, 200);
  strictEqual(fromQuery.body.id, group.body.id);
  deepStrictEqual(Object.keys(fromQuery.body), [
    "id",
    "subject",
    "subjectOwner",
    "subjectTime",
    "pictureUrl",
    "size",
    "creation",
    "owner",
    "desc",
    "descId",
    "restrict",
    "announce",
    "isCommunity",
    "isCommunityAnnounce",
    "linkedParent",
    "participants",
  ]);
  const fromBody = await call(sim, "POST", "/group/updateGroupSubject/sales", {
    groupJid: bare,
    subject: "Renamed",
  });
  strictEqual(fromBody.status, 201);
  deepStrictEqual(fromBody.body, { update: "success" });
  strictEqual(
    (await call(sim, "GET", `/group/findGroupInfos/sales?groupJid=${bare}`)).body.subject,
    "Renamed",
  );
  await sim.close();
});

Deno.test("simulator: a missing groupJid and group schema errors have their own shapes", async () => {
  const { sim } = await withGroup();
  const missing = await call(sim, "GET", "/group/participants/sales");
  strictEqual(missing.status, 400);
  deepStrictEqual(missing.body, {
    status: 400,
    error: "Bad Request",
    response: { message: ["The group id needs to be informed in the query", 'ex: "groupJid=120362@g.us"'] },
  });
  const badJid = await call(sim, "GET", "/group/findGroupInfos/sales?groupJid=abc");
  strictEqual(badJid.status, 400);
  deepStrictEqual(badJid.body.response.message, [
    { property: "groupJid", message: 'groupJid does not match pattern "^[\\\\d-]+@g.us$"' },
  ]);
  const noSubject = await call(sim, "POST", "/group/updateGroupSubject/sales?groupJid=1203630001");
  deepStrictEqual(noSubject.body.response.message, [
    { property: "instance", message: 'instance requires property "subject"' },
  ]);
  const badAction = await call(sim, "POST", "/group/updateParticipant/sales?groupJid=1203630001", {
    action: "kick",
    participants: [MEMBER],
  });
  deepStrictEqual(badAction.body.response.message, [
    { property: "action", message: "action is not one of enum values: add,remove,promote,demote" },
  ]);
  await sim.close();
});

Deno.test("simulator: an unknown group fails with the route's own error", async () => {
  const sim = newSim();
  await openInstance(sim);
  const info = await call(sim, "GET", "/group/findGroupInfos/sales?groupJid=120363000000000001");
  strictEqual(info.status, 404);
  deepStrictEqual(info.body.response.message, ["Error fetching group", "Error: item-not-found"]);
  const participants = await call(sim, "POST", "/group/updateParticipant/sales?groupJid=120363000000000001", {
    action: "add",
    participants: [MEMBER],
  });
  strictEqual(participants.status, 400);
  deepStrictEqual(participants.body.response.message, [
    "Error updating participants",
    "Error: item-not-found",
  ]);
  await sim.close();
});

Deno.test("simulator: participants are updated and listed", async () => {
  const { sim, group } = await withGroup();
  const jid = group.body.id;
  const add = await call(sim, "POST", `/group/updateParticipant/sales?groupJid=${jid}`, {
    action: "add",
    participants: ["5511933334444"],
  });
  strictEqual(add.status, 201);
  deepStrictEqual(add.body, { updateParticipants: [{ status: "200", jid: "5511933334444@s.whatsapp.net" }] });
  const event = sim.events.at(-1)!;
  strictEqual(event.event, "group-participants.update");
  deepStrictEqual(event.data, {
    id: jid,
    author: OWNER,
    participants: ["5511933334444@s.whatsapp.net"],
    action: "add",
  });
  await call(sim, "POST", `/group/updateParticipant/sales?groupJid=${jid}`, {
    action: "promote",
    participants: [MEMBER],
  });
  await call(sim, "POST", `/group/updateParticipant/sales?groupJid=${jid}`, {
    action: "remove",
    participants: ["5511933334444"],
  });
  const list = await call(sim, "GET", `/group/participants/sales?groupJid=${jid}`);
  strictEqual(list.status, 200);
  deepStrictEqual(list.body, {
    participants: [{ id: OWNER, admin: "superadmin" }, { id: `${MEMBER}@s.whatsapp.net`, admin: "admin" }],
  });
  await sim.close();
});

Deno.test("simulator: invite codes, settings, ephemeral, leave", async () => {
  const { sim, group } = await withGroup();
  const jid = group.body.id;
  const invite = await call(sim, "GET", `/group/inviteCode/sales?groupJid=${jid}`);
  strictEqual(invite.status, 200);
  ok(/^[A-Za-z0-9]{22}$/.test(invite.body.inviteCode));
  strictEqual(invite.body.inviteUrl, `https://chat.whatsapp.com/${invite.body.inviteCode}`);
  const info = await call(sim, "GET", `/group/inviteInfo/sales?inviteCode=${invite.body.inviteCode}`);
  strictEqual(info.body.id, jid);
  const noCode = await call(sim, "GET", "/group/inviteInfo/sales");
  strictEqual(noCode.status, 400);
  strictEqual(noCode.body.response.message[0], "The group invite code id needs to be informed in the query");
  const revoked = await call(sim, "POST", `/group/revokeInviteCode/sales?groupJid=${jid}`);
  strictEqual(revoked.status, 201);
  strictEqual(revoked.body.revoked, true);
  ok(revoked.body.inviteCode !== invite.body.inviteCode);
  const accept = await call(
    sim,
    "GET",
    `/group/acceptInviteCode/sales?inviteCode=${revoked.body.inviteCode}`,
  );
  deepStrictEqual(accept.body, { accepted: true, groupJid: jid });
  const setting = await call(sim, "POST", `/group/updateSetting/sales?groupJid=${jid}`, {
    action: "announcement",
  });
  strictEqual(setting.status, 201);
  strictEqual((await call(sim, "GET", `/group/findGroupInfos/sales?groupJid=${jid}`)).body.announce, true);
  const eph = await call(sim, "POST", `/group/toggleEphemeral/sales?groupJid=${jid}`, { expiration: 86400 });
  deepStrictEqual(eph.body, { success: true });
  const badEph = await call(sim, "POST", `/group/toggleEphemeral/sales?groupJid=${jid}`, { expiration: 5 });
  strictEqual(badEph.status, 400);
  const all = await call(sim, "GET", "/group/fetchAllGroups/sales?getParticipants=false");
  strictEqual(all.body.length, 1);
  strictEqual(all.body[0].participants, undefined);
  strictEqual(
    (await call(sim, "GET", "/group/fetchAllGroups/sales?getParticipants=true")).body[0].participants.length,
    2,
  );
  deepStrictEqual((await call(sim, "GET", "/group/fetchAllGroups/sales")).body.response.message, [
    "The getParticipants needs to be informed in the query",
  ]);
  const leave = await call(sim, "DELETE", `/group/leaveGroup/sales?groupJid=${jid}`);
  strictEqual(leave.status, 200);
  deepStrictEqual(leave.body, { groupJid: jid, leave: true });
  deepStrictEqual((await call(sim, "GET", "/group/fetchAllGroups/sales?getParticipants=false")).body, []);
  await sim.close();
});

Deno.test("simulator: sendInvite sends the link to each number", async () => {
  const { sim, group } = await withGroup();
  const res = await call(sim, "POST", "/group/sendInvite/sales", {
    groupJid: group.body.id,
    description: "Join us",
    numbers: ["5511955556666"],
  });
  strictEqual(res.status, 200);
  strictEqual(res.body.send, true);
  ok(res.body.inviteUrl.startsWith("https://chat.whatsapp.com/"));
  strictEqual(sim.sentMessages.at(-1)?.remoteJid, "5511955556666@s.whatsapp.net");
  ok(sim.sentMessages.at(-1)?.text?.startsWith("Join us\n\nhttps://chat.whatsapp.com/"));
  await sim.close();
});

Deno.test("simulator: group routes need the socket", async () => {
  const sim = newSim();
  await createInstance(sim, "sales");
  const res = await call(sim, "POST", "/group/create/sales", { subject: "Team", participants: [MEMBER] });
  strictEqual(res.status, 500);
  deepStrictEqual(res.body.response.message, [
    "Error creating group",
    "TypeError: Cannot read properties of undefined (reading 'groupCreate')",
  ]);
  await sim.close();
});
