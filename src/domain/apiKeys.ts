/**
 * API keys as stored in KV: one entry per key under the SHA-256 hex digest of
 * the key (never the key itself), with its facts in the entry's metadata.
 * Shared by the Worker (checking) and scripts/keys.ts (issuing).
 */
export interface KeyMetadata {
  label: string;
  /** ISO 8601 UTC. */
  created: string;
  status: "active" | "revoked";
}

/** Longest key accepted; anything longer is refused without a lookup. */
export const MAX_KEY_LENGTH = 256;

export async function hashKey(key: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function isKeyMetadata(value: unknown): value is KeyMetadata {
  if (typeof value !== "object" || value === null) return false;
  const m = value as Record<string, unknown>;
  return (
    typeof m.label === "string" && typeof m.created === "string" && (m.status === "active" || m.status === "revoked")
  );
}
