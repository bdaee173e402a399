/** Registers an API key in the local KV namespace (never a deployed one). */
import { getPlatformProxy } from "wrangler";
import { hashKey, type KeyMetadata } from "../src/domain/apiKeys.ts";

/** `persistTo`: another wrangler state directory (`--persist-to`) than .wrangler/state. */
export async function putLocalKey(key: string, metadata: KeyMetadata, persistTo?: string): Promise<void> {
  const proxy = await getPlatformProxy<{ API_KEYS: KVNamespace }>({
    configPath: "wrangler.toml",
    remoteBindings: false,
    ...(persistTo ? { persist: { path: `${persistTo}/v3` } } : {}),
  });
  try {
    await proxy.env.API_KEYS.put(await hashKey(key), "", { metadata });
  } finally {
    await proxy.dispose();
  }
}
