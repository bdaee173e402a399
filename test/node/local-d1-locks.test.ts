/**
 * Two processes writing one local D1 file (two imports at once, an import
 * beside `npm start`): the in-process driver waits for the other's lock
 * rather than failing with "database is locked".
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { localD1Database, openLocalD1File } from "../../scripts/localD1.ts";
import { changeMarks } from "../../src/db/schema.ts";
import { migratedDatabase } from "./migrated.ts";

const work = mkdtempSync(join(tmpdir(), "lien-locks-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A migrated local D1 file of its own. */
function localFile(name: string): string {
  const file = join(work, `${name}.sqlite`);
  const db = migratedDatabase();
  db.prepare("vacuum into ?").run(file);
  db.close();
  return file;
}

/**
 * Another process that takes `lock` on `file`, writes the change-feed mark,
 * and commits after `ms`; resolves once it holds the lock, with a promise of its exit status.
 */
async function holding(
  file: string,
  lock: "immediate" | "exclusive",
  ms: number,
): Promise<{ ended: Promise<number | null> }> {
  const script = `
    const { DatabaseSync } = require("node:sqlite");
    const db = new DatabaseSync(${JSON.stringify(file)});
    db.exec("begin ${lock}");
    db.exec("insert or replace into change_marks (id, purged_through) values (1, 7)");
    console.log("locked");
    setTimeout(() => { db.exec("commit"); db.close(); }, ${ms});`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  const ended = new Promise<number | null>((resolve) => child.on("close", resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => d.toString().includes("locked") && resolve());
    child.on("error", reject);
  });
  return { ended };
}

describe("a local D1 file another process is writing", () => {
  it("is opened once the other process commits, not refused as locked", async () => {
    const file = localFile("open");
    const { ended } = await holding(file, "exclusive", 1_000);
    const db = openLocalD1File(file);
    const [mark] = await localD1Database(db).select().from(changeMarks);
    db.close();
    expect(mark?.purgedThrough).toBe(7);
    expect(await ended).toBe(0);
  });

  it("takes a batch that reads, then writes, once the other process commits", async () => {
    const file = localFile("batch");
    const db = openLocalD1File(file);
    const local = localD1Database(db);
    // Read first, in the same batch: a read lock cannot wait to become the write lock.
    const { ended } = await holding(file, "immediate", 1_000);
    const [, marks] = await local.batch([
      local.select().from(changeMarks),
      local
        .insert(changeMarks)
        .values({ id: 1, purgedThrough: 0 })
        .onConflictDoUpdate({ target: changeMarks.id, set: { purgedThrough: sql`${changeMarks.purgedThrough} + 1` } })
        .returning(),
    ]);
    db.close();
    expect(marks[0]?.purgedThrough).toBe(8);
    expect(await ended).toBe(0);
  });
});
