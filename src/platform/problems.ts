/**
 * Rejects and warnings of a platform load, in the feeds bucket (feedFiles.ts):
 * each range step puts its own part (named by its first byte, so a retried
 * range replaces its part rather than adding one), and the end of the load
 * joins the parts, in file order, into one object per kind beside the file,
 * the lines the CLI writes to FILE.rejects.ndjson and FILE.warnings.ndjson.
 */
import type { Reject, Warning } from "../feed/read.ts";
import { type Problems, partKey, partsPrefix, problemsKey } from "./feedFiles.ts";

const KINDS: Problems[] = ["rejects", "warnings"];
const NDJSON = { httpMetadata: { contentType: "application/x-ndjson" } };
/** Most keys one R2 delete takes (local R2 takes more): a load of over a thousand ranges has more parts. */
const R2_DELETE_MAX = 1_000;

/** One range's rejects and warnings (a range holds a few MB of the file, so they fit in memory). */
export class RangeProblems {
  private readonly lines: Record<Problems, string[]> = { rejects: [], warnings: [] };

  reject = (reject: Reject) => void this.lines.rejects.push(JSON.stringify(reject));
  warn = (warning: Warning) => void this.lines.warnings.push(JSON.stringify(warning));

  /** Puts the range's parts (and removes a part an earlier attempt of it left, when it now has none). */
  async save(bucket: R2Bucket, id: string, start: number): Promise<void> {
    const none: string[] = [];
    for (const kind of KINDS) {
      const key = partKey(kind, id, start);
      const lines = this.lines[kind];
      if (lines.length === 0) none.push(key);
      else await bucket.put(key, `${lines.join("\n")}\n`, NDJSON);
    }
    // One call for both kinds when a range has neither, as most have.
    if (none.length > 0) await bucket.delete(none);
  }
}

async function parts(bucket: R2Bucket, prefix: string): Promise<R2Object[]> {
  const out: R2Object[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, ...(cursor ? { cursor } : {}) });
    out.push(...page.objects);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return out.sort((a, b) => (a.key < b.key ? -1 : 1));
}

/**
 * Joins load `id`'s parts into the rejects and warnings objects of `key`,
 * streaming each part in turn (never a part or the whole in memory), each
 * object naming the load in its metadata; a kind with no parts removes the
 * object an earlier version's load left, but keeps one this load joined: a
 * retried finish finds its parts deleted by the try that joined them. The
 * parts are deleted unless `keepParts` (a failed load, which a restart
 * finishes).
 */
export async function joinProblems(bucket: R2Bucket, id: string, key: string, keepParts: boolean): Promise<void> {
  for (const kind of KINDS) {
    const list = await parts(bucket, partsPrefix(kind, id));
    const target = problemsKey(kind, key);
    if (list.length === 0) {
      if ((await bucket.head(target))?.customMetadata?.load !== id) await bucket.delete(target);
      continue;
    }
    const { readable, writable } = new FixedLengthStream(list.reduce((n, p) => n + p.size, 0));
    const put = bucket.put(target, readable, { ...NDJSON, customMetadata: { load: id } });
    try {
      for (const part of list) {
        const object = await bucket.get(part.key);
        if (!object) throw new Error(`${part.key} disappeared while its load's ${kind} were joined`);
        await object.body.pipeTo(writable, { preventClose: true });
      }
      await writable.close();
    } catch (err) {
      await writable.abort(err).catch(() => {});
      await put.catch(() => {});
      throw err;
    }
    await put;
    if (!keepParts) {
      const keys = list.map((p) => p.key);
      for (let at = 0; at < keys.length; at += R2_DELETE_MAX) await bucket.delete(keys.slice(at, at + R2_DELETE_MAX));
    }
  }
}
