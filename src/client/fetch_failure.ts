/**
 * What a failed `fetch` means: whether it can have reached the server, and a cause naming host and port.
 *
 * @module
 */

/** Why a fetch failed, as far as its error says. */
export type FetchFailureCause = "refused" | "dns" | "tls" | "closed" | "other";

/** A fetch failure, read. */
export interface FetchFailure {
  /** What went wrong. */
  cause: FetchFailureCause;
  /** True when the request cannot have reached the server (refused connection, failed DNS lookup). */
  notSent: boolean;
  /** One line for an error message: the cause with the host and port. */
  description: string;
}

const REFUSED = /connection refused|ECONNREFUSED|os error 111|os error 61|tcp connect error/i;
const DNS = /dns error|failed to lookup|ENOTFOUND|EAI_AGAIN|getaddrinfo|name or service not known/i;
const TLS = /tls|ssl|certificate|handshake|corrupt message|UnknownIssuer|CERT_/i;
const CLOSED =
  /connection closed|connection lost|ECONNRESET|connection reset|socket hang up|broken pipe|EPIPE|UND_ERR_SOCKET/i;

/** The error and its causes, outermost first (at most 5 deep). */
function chain(error: unknown): unknown[] {
  const links: unknown[] = [];
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    links.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return links;
}

function textOf(link: unknown): string {
  const code = (link as { code?: unknown })?.code;
  const base = link instanceof Error ? `${link.name} ${link.message}` : String(link);
  return typeof code === "string" ? `${base} ${code}` : base;
}

/** `host:port` of a URL, with the scheme's default port spelled out. */
export function hostAndPort(url: string): string {
  try {
    const parsed = new URL(url);
    const port = parsed.port || (parsed.protocol === "https:" ? "443" : "80");
    return `${parsed.hostname}:${port}`;
  } catch {
    return url;
  }
}

/** True when a fetch failed before reaching the server (refused, DNS), so a retry cannot act twice. */
export function failedBeforeSending(error: unknown): boolean {
  return chain(error).some((link) => {
    const text = textOf(link);
    return REFUSED.test(text) || DNS.test(text);
  });
}

/**
 * Read a fetch failure of a request to `url`: its cause (refused, DNS, TLS, connection closed), whether it
 * can have reached the server, and a description naming the host and port, with the innermost error's own
 * words for anything else.
 */
export function describeFetchFailure(error: unknown, url: string): FetchFailure {
  const links = chain(error);
  const texts = links.map(textOf);
  const at = hostAndPort(url);
  const innermost = links.length === 0
    ? String(error)
    : (links.at(-1) instanceof Error ? (links.at(-1) as Error).message : String(links.at(-1)));
  if (texts.some((text) => DNS.test(text))) {
    const host = at.slice(0, at.lastIndexOf(":"));
    return { cause: "dns", notSent: true, description: `cannot resolve host "${host}" (for ${at})` };
  }
  if (texts.some((text) => REFUSED.test(text))) {
    return { cause: "refused", notSent: true, description: `connection refused by ${at}` };
  }
  if (texts.some((text) => TLS.test(text))) {
    return { cause: "tls", notSent: false, description: `TLS handshake with ${at} failed (${innermost})` };
  }
  if (texts.some((text) => CLOSED.test(text))) {
    return {
      cause: "closed",
      notSent: false,
      description: `connection to ${at} closed before the answer (${innermost})`,
    };
  }
  return { cause: "other", notSent: false, description: `${at}: ${innermost}` };
}
