/**
 * Webhook secrets: made, sealed for storage, opened for signing, and the
 * Standard Webhooks signature (docs/webhooks.md).
 *
 * A secret is `whsec_` and 32 random bytes in base64, as the Standard
 * Webhooks libraries take it. It is stored sealed, so a dump of the
 * database alone does not give it: encrypted with AES-GCM under a key
 * agreed by ECDH (P-256) between a fresh key pair made for each seal and
 * the Worker's key pair, through HKDF-SHA-256. The operator's CLI seals
 * with the Worker's public key (WEBHOOK_PUBLIC_KEY, a var); only the
 * Worker, which holds the private key (WEBHOOK_PRIVATE_KEY, a secret),
 * opens. So the CLI holds nothing that opens a stored secret, locally or
 * against a deployment. Sealed form: `v1.` then the fresh public key, the
 * IV and the ciphertext, each base64url, joined by dots.
 *
 * WebCrypto only: the same code runs in the Worker and in Node (the CLI).
 */

const SEALED_VERSION = "v1";
const HKDF_INFO = new TextEncoder().encode("lien-filing-lookup webhook secret v1");
const ECDH = { name: "ECDH", namedCurve: "P-256" } as const;

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

const base64url = (bytes: Uint8Array) => base64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
const fromBase64url = (text: string) => fromBase64(text.replaceAll("-", "+").replaceAll("_", "/"));

/** A new signing secret, `whsec_` and 32 random bytes in base64. */
export function newSecret(): string {
  return `whsec_${base64(crypto.getRandomValues(new Uint8Array(32)))}`;
}

/** The key pair whose public half seals and private half opens: each as JWK text (`npm run webhooks -- keygen`). */
export async function newSealingKeys(): Promise<{ publicKey: string; privateKey: string }> {
  const pair = (await crypto.subtle.generateKey(ECDH, true, ["deriveBits"])) as CryptoKeyPair;
  const { kty, crv, x, y, d } = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey;
  return { publicKey: JSON.stringify({ kty, crv, x, y }), privateKey: JSON.stringify({ kty, crv, x, y, d }) };
}

async function sharedKey(privateKey: CryptoKey, publicKey: CryptoKey, usage: "encrypt" | "decrypt") {
  // The runtime reads `public`; the Workers types spell it `$public` (a reserved word): built so both hold.
  const algorithm: SubtleCryptoDeriveKeyAlgorithm = Object.assign({ name: "ECDH" }, { public: publicKey });
  const bits = await crypto.subtle.deriveBits(algorithm, privateKey, 256);
  const hkdf = await crypto.subtle.importKey("raw", bits, "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(32), info: HKDF_INFO },
    hkdf,
    { name: "AES-GCM", length: 256 },
    false,
    [usage],
  );
}

function jwk(text: string, what: string): JsonWebKey {
  try {
    const parsed = JSON.parse(text) as JsonWebKey;
    if (parsed.kty === "EC" && parsed.crv === "P-256") return parsed;
  } catch {
    // Reported below, without the text (it may be the private key).
  }
  throw new Error(`${what} is not a P-256 key in JWK form`);
}

/** `secret` sealed for storage with the Worker's public key (JWK text). */
export async function sealSecret(secret: string, publicKeyJwk: string): Promise<string> {
  const recipient = await crypto.subtle.importKey("jwk", jwk(publicKeyJwk, "WEBHOOK_PUBLIC_KEY"), ECDH, false, []);
  const fresh = (await crypto.subtle.generateKey(ECDH, true, ["deriveBits"])) as CryptoKeyPair;
  const key = await sharedKey(fresh.privateKey, recipient, "encrypt");
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(secret));
  const ephemeral = new Uint8Array((await crypto.subtle.exportKey("raw", fresh.publicKey)) as ArrayBuffer);
  return [SEALED_VERSION, base64url(ephemeral), base64url(iv), base64url(new Uint8Array(sealed))].join(".");
}

/** A sealed secret opened with the Worker's private key (JWK text). */
export async function openSecret(sealed: string, privateKeyJwk: string): Promise<string> {
  const [version, ephemeral, iv, data] = sealed.split(".");
  if (version !== SEALED_VERSION || !ephemeral || !iv || !data) throw new Error("not a sealed webhook secret");
  const own = await crypto.subtle.importKey("jwk", jwk(privateKeyJwk, "WEBHOOK_PRIVATE_KEY"), ECDH, false, [
    "deriveBits",
  ]);
  const sender = await crypto.subtle.importKey("raw", fromBase64url(ephemeral), ECDH, false, []);
  const key = await sharedKey(own, sender, "decrypt");
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromBase64url(iv) }, key, fromBase64url(data));
  return new TextDecoder().decode(plain);
}

/**
 * The `webhook-signature` header of a message: `v1,` and the base64
 * HMAC-SHA256 of `{id}.{timestamp}.{body}` under each secret (the bytes
 * after `whsec_`, base64-decoded), separated by spaces.
 */
export async function signatures(secrets: readonly string[], id: string, timestamp: number, body: string) {
  const content = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  const signed = await Promise.all(
    secrets.map(async (secret) => {
      const raw = fromBase64(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret);
      const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      return `v1,${base64(new Uint8Array(await crypto.subtle.sign("HMAC", key, content)))}`;
    }),
  );
  return signed.join(" ");
}
