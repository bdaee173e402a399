/** Registers an API key in the local KV namespace (never a deployed one). */
import { getPlatformProxy } from "wrangler";
import { hashKey, type KeyMetadata } from "../src/domain/apiKeys.ts";

export async function putLocalKey(key: string, metadata: KeyMetadata): Promise<void> {
  const proxy = await getPlatformProxy<{ API_KEYS: KVNamespace }>({
    configPath: "wrangler.toml",
    remoteBindings: false,
  });
  try {
    await proxy.env.API_KEYS.put(await hashKey(key), "", { metadata });
  } finally {
    await proxy.dispose();
  }
}
