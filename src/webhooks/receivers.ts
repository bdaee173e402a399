/**
 * Which receiver URLs a webhook may be sent to, checked when a subscription
 * is made (the CLI) and again before every delivery (the consumer): a
 * receiver must not be a way into a private network or a cloud metadata
 * service.
 *
 * - `https` only, without a user or password in the URL. Where the
 *   environment allows local receivers (WEBHOOK_LOCAL_RECEIVERS, true at
 *   wrangler.toml's top level only: local development and tests), `http`
 *   to a loopback host (localhost, 127.0.0.0/8, ::1) too, and names are not
 *   resolved.
 * - A host written as an IP address is refused (but loopback, where
 *   allowed): a receiver is named.
 * - Elsewhere the name is resolved (A and AAAA) through DNS over HTTPS
 *   (Cloudflare's JSON API: Workers have no DNS API), and refused if it has
 *   no address or any address is private, loopback, link-local (so the
 *   metadata address 169.254.169.254), shared (100.64.0.0/10), unique local
 *   (fc00::/7, so fd00:ec2::254), multicast, reserved or for documentation.
 *
 * What this cannot check: fetch() resolves the name again on its own, so a
 * name whose answer changes between the check and the request (DNS
 * rebinding) is not caught; nor what a proxy or CDN in front of a public
 * address forwards to. Redirects are never followed (deliver.ts), so an
 * allowed receiver cannot point a delivery elsewhere.
 */

export interface ReceiverRules {
  /** Local development and tests: http to loopback allowed, names not resolved. */
  localReceivers: boolean;
  /** DNS over HTTPS (fetch by default; tests and the CLI pass their own). */
  resolve?: (name: string, type: "A" | "AAAA") => Promise<string[]>;
}

/** Why a URL is refused, or null when it may receive webhooks. */
export async function receiverProblem(text: string, rules: ReceiverRules): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "not an absolute URL";
  }
  if (url.username !== "" || url.password !== "") return "a user or password in the URL is not allowed";
  const host = url.hostname.toLowerCase();
  const literal = ipOf(host);
  const loopback = host === "localhost" || host.endsWith(".localhost") || (literal !== null && isLoopback(literal));
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback && rules.localReceivers)) {
    return rules.localReceivers
      ? "must be https (or http to a loopback address, locally)"
      : `must be https, not ${url.protocol.replace(/:$/, "")}`;
  }
  if (loopback) return rules.localReceivers ? null : "a loopback host is not allowed";
  if (literal !== null) return "a host written as an IP address is not allowed; use its name";
  if (rules.localReceivers) return null;
  const resolve = rules.resolve ?? resolveOverHttps;
  let addresses: string[];
  try {
    addresses = (await Promise.all([resolve(host, "A"), resolve(host, "AAAA")])).flat();
  } catch (err) {
    return `its name could not be resolved (${(err as Error).message})`;
  }
  if (addresses.length === 0) return "its name has no address";
  const inner = addresses.find((a) => {
    const ip = ipOf(a);
    return ip === null || !isPublic(ip);
  });
  return inner === undefined ? null : `its name resolves to ${inner}, which is not a public address`;
}

const DOH = "https://cloudflare-dns.com/dns-query";
const RECORD_TYPES = { A: 1, AAAA: 28 } as const;

/** The addresses of `name` of `type`, from Cloudflare's DNS over HTTPS (JSON), following CNAMEs as the answer does. */
async function resolveOverHttps(name: string, type: "A" | "AAAA"): Promise<string[]> {
  const res = await fetch(`${DOH}?name=${encodeURIComponent(name)}&type=${type}`, {
    headers: { accept: "application/dns-json" },
    signal: AbortSignal.timeout(5_000),
  });
  if (!res.ok) throw new Error(`DNS over HTTPS answered ${res.status}`);
  const body = (await res.json()) as { Status?: number; Answer?: { type: number; data: string }[] };
  // NOERROR or NXDOMAIN (no address); anything else is a failed lookup.
  if (body.Status !== 0 && body.Status !== 3) throw new Error(`DNS status ${body.Status}`);
  return (body.Answer ?? []).filter((a) => a.type === RECORD_TYPES[type]).map((a) => a.data);
}

/** An IP address as 16 bytes (IPv4 mapped into ::ffff:0:0/96), or null if `text` is not one. */
function ipOf(text: string): Uint8Array | null {
  const host = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4) {
    const parts = v4.slice(1).map(Number);
    if (parts.some((p) => p > 255)) return null;
    return new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...parts]);
  }
  if (!host.includes(":")) return null;
  return ipv6(host);
}

function ipv6(text: string): Uint8Array | null {
  let host = text;
  // A trailing dotted IPv4 part (::ffff:1.2.3.4) as two groups.
  const tail = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    if ([a, b, c, d].some((p) => p > 255)) return null;
    host = `${host.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = host.split("::");
  if (halves.length > 2) return null;
  const groups = (part: string | undefined) => (part ? part.split(":") : []);
  const head = groups(halves[0]);
  const rest = groups(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...rest];
  const bytes = new Uint8Array(16);
  for (const [i, g] of all.entries()) {
    if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
    const v = Number.parseInt(g, 16);
    bytes[i * 2] = v >> 8;
    bytes[i * 2 + 1] = v & 0xff;
  }
  return bytes;
}

/** Whether the first `bits` bits of `ip` are those of `prefix` (16 bytes). */
function within(ip: Uint8Array, prefix: number[], bits: number): boolean {
  for (let i = 0; i < bits; i++) {
    const byte = Math.floor(i / 8);
    const mask = 0x80 >> (i % 8);
    if (((ip[byte] ?? 0) & mask) !== ((prefix[byte] ?? 0) & mask)) return false;
  }
  return true;
}

const V4 = (a: number, b = 0, c = 0, d = 0) => [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d];
const V6 = (...groups: number[]) => groups.flatMap((g) => [g >> 8, g & 0xff]);

function isLoopback(ip: Uint8Array): boolean {
  return within(ip, V4(127), 96 + 8) || within(ip, V6(0, 0, 0, 0, 0, 0, 0, 1), 128);
}

/** Ranges no receiver may be in: [prefix, bits]. */
const NOT_PUBLIC: [number[], number][] = [
  [V4(0), 104], // "this" network
  [V4(10), 104],
  [V4(100, 64), 106], // shared address space (carrier-grade NAT)
  [V4(127), 104],
  [V4(169, 254), 112], // link-local, and the cloud metadata address
  [V4(172, 16), 108],
  [V4(192, 0, 0), 120],
  [V4(192, 0, 2), 120],
  [V4(192, 168), 112],
  [V4(198, 18), 111],
  [V4(198, 51, 100), 120],
  [V4(203, 0, 113), 120],
  [V4(224), 100], // multicast, and 240.0.0.0/4 reserved
  [V4(240), 100],
  [V6(0, 0, 0, 0, 0, 0, 0, 0), 96], // unspecified, loopback, IPv4-compatible
  [V6(0x100), 64], // discard
  [V6(0x64, 0xff9b, 1), 48], // local-use NAT64: a translator's own, private IPv4 behind it
  [V6(0x2001), 32], // Teredo: an IPv4 address behind it, obfuscated
  [V6(0x2001, 0xdb8), 32], // documentation
  [V6(0xfc00), 7], // unique local (fd00:ec2::254)
  [V6(0xfe80), 10], // link-local
  [V6(0xfec0), 10], // site-local (deprecated, still routed on some networks)
  [V6(0xff00), 8], // multicast
];

function isPublic(ip: Uint8Array): boolean {
  // NAT64 (64:ff9b::/96) reaches the IPv4 address in its last four bytes.
  if (within(ip, V6(0x64, 0xff9b), 96)) return isPublic(new Uint8Array([...V4(0).slice(0, 12), ...ip.slice(12)]));
  // 6to4 (2002::/16) reaches the IPv4 address in its bytes 2 to 5.
  if (within(ip, V6(0x2002), 16)) return isPublic(new Uint8Array([...V4(0).slice(0, 12), ...ip.slice(2, 6)]));
  return !NOT_PUBLIC.some(([prefix, bits]) => within(ip, prefix, bits));
}
