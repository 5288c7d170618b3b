/** A chat's line in the store. */
export interface Line {
  /** The next ticket to hand out. */
  next: number;
  /** The ticket whose turn it is. */
  serving: number;
  /** When `serving` last moved (epoch ms). */
  since: number;
  /** Tickets given up before their turn: skipped when it comes. */
  skip?: number[];
  /** Who took the tickets not served yet: `[process, first ticket, count]` per compare-and-set. */
  by?: [string, number, number][];
}

/** The line after `ticket`'s turn: the next ticket not given up, or null when none is left. */
export function after(line: Line, ticket: number, now: number): Line | null {
  const skip = new Set(line.skip ?? []);
  let serving = ticket + 1;
  while (skip.has(serving)) skip.delete(serving++);
  if (serving >= line.next) return null;
  const next: Line = { next: line.next, serving, since: now };
  const rest = [...skip].filter((t) => t > serving);
  if (rest.length > 0) next.skip = rest;
  const by = servedBy(line, serving);
  if (by.length > 0) next.by = by;
  return next;
}

/** The takers of the tickets from `serving` on. */
export function servedBy(line: Line, serving: number): [string, number, number][] {
  return (line.by ?? []).filter(([, first, count]) => first + count > serving);
}

/** The line without its gone holder and its process's other tickets (unless that process is `self`). */
export function withoutGone(line: Line, now: number, self: string): Line | null {
  const gone = line.by?.find(([, first, count]) => first <= line.serving && line.serving < first + count)
    ?.[0];
  if (gone === self) return after(line, line.serving, now);
  const theirs = (line.by ?? []).filter(([who]) => who === gone).flatMap(([, first, count]) =>
    Array.from({ length: count }, (_, i) => first + i).filter((t) => t > line.serving)
  );
  return after({ ...line, skip: [...line.skip ?? [], ...theirs] }, line.serving, now);
}
