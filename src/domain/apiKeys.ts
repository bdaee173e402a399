/**
 * API keys as stored in KV: one entry per key under the SHA-256 hex digest of
 * the key (never the key itself), with its facts in the entry's metadata.
 * Shared by the Worker (checking) and scripts/keys.ts (issuing).
 */

/**
 * Request-rate tiers. Each is a Cloudflare rate limiting binding (see
 * wrangler.toml) counting per key; `unmetered` is for internal load tests.
 */
export const RATE_TIERS = ["standard", "bulk", "unmetered"] as const;
export type RateTier = (typeof RATE_TIERS)[number];

export interface KeyMetadata {
  label: string;
  /** ISO 8601 UTC. */
  created: string;
  status: "active" | "revoked";
  /** ISO 8601 UTC after which the key is refused; absent: no expiry. */
  expires?: string;
  /** Absent: standard. */
  rateLimit?: RateTier;
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
    typeof m.label === "string" &&
    typeof m.created === "string" &&
    (m.status === "active" || m.status === "revoked") &&
    (m.expires === undefined || typeof m.expires === "string") &&
    (m.rateLimit === undefined || RATE_TIERS.includes(m.rateLimit as RateTier))
  );
}

/** Whether a key with this metadata may be used at `now`. */
export function isUsable(m: KeyMetadata, now: Date): boolean {
  return m.status === "active" && (m.expires === undefined || Date.parse(m.expires) > now.getTime());
}
