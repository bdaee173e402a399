/**
 * Opaque continuation cursors: where a client resumes a list or the change
 * feed. A cursor is a small JSON payload (positions, never SQL or a key),
 * bound to the list it came from and sealed with a digest, so a cursor that
 * was cut, edited or taken from another list is refused with a 400 naming
 * `cursor` rather than read as some other position. The digest detects
 * accidents and edits; it is not a secret: a position is nothing a client
 * could not ask for otherwise.
 *
 * Text form: `<payload>.<seal>`, both base64url without padding; the seal is
 * a 64-bit hash of the list's name and the payload (hash64, 11 characters),
 * computed in the Worker's own code: SHA-256 through `crypto.subtle`, which sealed
 * cursors until 2026-12, is a call out of the isolate and back that cost a
 * list page more than the rest of its cursor's handling (bench/CPU.md). A
 * cursor sealed that way (the first 9 bytes, 12 characters) is still taken:
 * clients keep change-feed cursors for days.
 */
import { z } from "@hono/zod-openapi";
import { joined } from "../domain/flat.ts";
import { hash64 } from "../domain/hash64.ts";
import { ApiError } from "./errors.ts";

/** Longest cursor accepted: far above any cursor the API hands out (a change feed's over MAX_SHARDS shards, with 8-digit positions: under 400 characters). */
export const MAX_CURSOR_LENGTH = 1024;

/** Bytes of a SHA-256 seal, handed out until 2026-12 and still taken, and its characters. */
const SHA_SEAL_BYTES = 9;
const SHA_SEAL_LENGTH = Math.ceil((SHA_SEAL_BYTES * 4) / 3);
const encoder = new TextEncoder();

function toBase64Url(bytes: Uint8Array): string {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array {
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/**
 * The seal of `payload` in the list `list`: the 64-bit hash the project
 * names rows with (hash64), as 8 bytes. Not a secret (anyone can compute
 * it): it catches a cursor cut, edited or pasted into another list.
 */
function seal(list: string, payload: string): string {
  const bytes = new Uint8Array(8);
  const view = new DataView(bytes.buffer);
  const [high, low] = hash64(`${list}\u0000${payload}`);
  view.setUint32(0, high);
  view.setUint32(4, low);
  return toBase64Url(bytes);
}

/** The seal cursors carried until 2026-12: the first 9 bytes of SHA-256 over the list's name and the payload. */
async function shaSeal(list: string, payload: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(`${list}\u0000${payload}`));
  return toBase64Url(new Uint8Array(digest).slice(0, SHA_SEAL_BYTES));
}

/** Whether `sealed` is the seal of `payload` in `list`, in either form. */
async function sealedBy(list: string, payload: string, sealed: string): Promise<boolean> {
  if (sealed.length === SHA_SEAL_LENGTH) return sealed === (await shaSeal(list, payload));
  return sealed === seal(list, payload);
}

/** The cursor of `position` in the list named `list`. */
export function encodeCursor(list: string, position: unknown): string {
  const payload = toBase64Url(encoder.encode(JSON.stringify(position)));
  // Joined, not a template: a body's strings are kept sequential (src/domain/flat.ts).
  return joined(payload, ".", seal(list, payload));
}

function refused(message: string): ApiError {
  return new ApiError("invalid_parameter", "Invalid query parameter: cursor.", {
    details: [{ parameter: "cursor", message }],
  });
}

/**
 * The position a cursor of the list `list` holds, checked by `schema`.
 * Throws a 400 naming `cursor` when it is not a cursor this list handed out.
 */
export async function decodeCursor<T>(list: string, text: string, schema: z.ZodType<T>): Promise<T> {
  const [payload, sealed, extra] = text.split(".");
  if (!payload || !sealed || extra !== undefined || !(await sealedBy(list, payload, sealed))) {
    throw refused("is not a cursor this list handed out: pass `next_cursor` of an earlier response as it was given");
  }
  let position: unknown;
  try {
    position = JSON.parse(new TextDecoder().decode(fromBase64Url(payload)));
  } catch {
    throw refused("is not a cursor this list handed out");
  }
  const parsed = schema.safeParse(position);
  // Sealed but not of this version's shape: a cursor from an older release.
  if (!parsed.success) throw refused("is from an earlier version of this list: start again without it");
  return parsed.data;
}

/** The `cursor` query parameter: an opaque token, checked for form here and for content by decodeCursor. */
export const cursorParam = z
  .string({
    error: (issue) => (issue.input === undefined ? "is required" : "must be given once, as `next_cursor` was given"),
  })
  .max(MAX_CURSOR_LENGTH, { error: `must be at most ${MAX_CURSOR_LENGTH} characters`, abort: true })
  .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, { error: "is not a cursor: pass `next_cursor` as it was given" })
  .openapi({
    pattern: "^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$",
    maxLength: MAX_CURSOR_LENGTH,
    description:
      "Opaque continuation: the `next_cursor` of the previous page, as given. Resumes the list exactly after the last item that page held.",
  });
