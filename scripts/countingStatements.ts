/**
 * Rows written through a local D1 handle (localD1Database), counted by
 * table: bench:writes (scripts/benchWrites.ts) and the tests of what a
 * load writes (test/node/running-totals.test.ts).
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { StatementCache } from "./localD1.ts";

/** A statement cache that adds the rows each writing statement changes to its table's count. */
export class Counting extends StatementCache {
  readonly written = new Map<string, number>();
  private readonly changes: StatementSync;

  constructor(db: DatabaseSync) {
    super(db, 256);
    this.changes = db.prepare("select total_changes() as n");
  }

  override get(text: string): StatementSync {
    const statement = super.get(text);
    const table = /^\s*(?:insert\s+into|update|delete\s+from|replace\s+into)\s+"?(\w+)"?/i.exec(text)?.[1];
    if (!table) return statement;
    const total = () => Number((this.changes.get() as { n: number }).n);
    const written = this.written;
    return new Proxy(statement, {
      get(target, prop) {
        const value = Reflect.get(target, prop);
        if (typeof value !== "function") return value;
        if (prop !== "run" && prop !== "all" && prop !== "get") return value.bind(target);
        return (...args: unknown[]) => {
          const before = total();
          const out = value.apply(target, args);
          written.set(table, (written.get(table) ?? 0) + total() - before);
          return out;
        };
      },
    });
  }

  /** The counts so far, cleared. */
  take(): Map<string, number> {
    const out = new Map(this.written);
    this.written.clear();
    return out;
  }

  /** Rows written to `tables` since the last take, and the counts cleared. */
  takeRows(...tables: string[]): number {
    const written = this.take();
    return tables.reduce((sum, t) => sum + (written.get(t) ?? 0), 0);
  }
}
