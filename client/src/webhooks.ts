/**
 * Receiving the service's webhooks (the API's docs/webhooks.md): each is
 * signed as the Standard Webhooks specification says, and verifyWebhook()
 * checks it as the official `standardwebhooks` library
 * does, with WebCrypto alone (Node 20+, browsers, Workers, Deno, Bun).
 */
import type { components } from "./openapi.js";

/** What a webhook's body holds: the change's type, when it was recorded, and the change as the feed gives it. */
export interface WebhookEvent {
  type: components["schemas"]["Change"]["type"];
  timestamp: string;
  data: components["schemas"]["Change"];
}

/** A webhook that does not verify: its message says why. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

/** Headers as a fetch Request has them, or as Node's http server gives them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Seconds a message's timestamp may be from now, either way: 300 (the library's). */
  toleranceSeconds?: number;
  /** The time to check against (default: now). */
  now?: Date;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof Headers !== "undefined" && headers instanceof Headers) return headers.get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** Equal strings, compared in time that depends on their length only. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Verifies a webhook and returns its event, or throws a
 * WebhookVerificationError. `secret` is the subscription's `whsec_...`
 * secret; `body` the request's raw body (the bytes or text as received,
 * before any JSON parsing). Any one of the `v1` signatures in
 * `webhook-signature` is enough (during a rotation there are two), and the
 * `webhook-timestamp` must be within `toleranceSeconds` of now. Keep each
 * `webhook-id` you have handled: a message may come more than once.
 */
export async function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signature = header(headers, "webhook-signature");
  if (!id || !timestamp || !signature) throw new WebhookVerificationError("Missing required headers");
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || !Number.isSafeInteger(seconds)) {
    throw new WebhookVerificationError("Invalid Signature Headers");
  }
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (now - seconds > tolerance) throw new WebhookVerificationError("Message timestamp too old");
  if (seconds - now > tolerance) throw new WebhookVerificationError("Message timestamp too new");
  const text = typeof body === "string" ? body : new TextDecoder().decode(body);
  let key: CryptoKey;
  try {
    const raw = fromBase64(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret);
    key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  } catch {
    throw new WebhookVerificationError("The secret is not base64 (whsec_...)");
  }
  const signed = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestamp}.${text}`));
  const expected = toBase64(new Uint8Array(signed));
  const matches = signature
    .split(" ")
    .map((s) => s.split(","))
    .some(([version, value]) => version === "v1" && value !== undefined && sameText(value, expected));
  if (!matches) throw new WebhookVerificationError("No matching signature found");
  return JSON.parse(text) as WebhookEvent;
}
