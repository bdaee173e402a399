/**
 * The cursor's seal (src/http/cursor.ts): a cursor is taken back by the
 * list that handed it out, and refused, naming `cursor`, when any one of its
 * characters is changed or it is offered to another list.
 */
import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "../src/http/cursor.ts";
import { ApiError } from "../src/http/errors.ts";

const position = z.strictObject({ page: z.number(), after: z.strictObject({ at: z.number(), num: z.string() }) });
const list = "/filings/recent-by-state?CA";
const cursor = encodeCursor(list, { page: 2, after: { at: 1_764_547_200, num: "U240012345678" } });
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

async function refused(text: string, from = list): Promise<boolean> {
  try {
    await decodeCursor(from, text, position);
    return false;
  } catch (err) {
    return err instanceof ApiError && err.status === 400;
  }
}

describe("a cursor's seal", () => {
  it("is taken back by its own list, as the position it holds", async () => {
    expect(await decodeCursor(list, cursor, position)).toEqual({
      page: 2,
      after: { at: 1_764_547_200, num: "U240012345678" },
    });
  });

  it("is refused by another list, and by the same list of another state", async () => {
    expect(await refused(cursor, "/filings/recently-terminated?CA")).toBe(true);
    expect(await refused(cursor, "/filings/recent-by-state?NY")).toBe(true);
  });

  it("catches every change of any one character, in the payload or the seal", async () => {
    const changed: string[] = [];
    for (let i = 0; i < cursor.length; i++) {
      if (cursor[i] === ".") continue;
      for (const other of BASE64URL) {
        if (other !== cursor[i]) changed.push(`${cursor.slice(0, i)}${other}${cursor.slice(i + 1)}`);
      }
    }
    const taken = [];
    for (const text of changed) if (!(await refused(text))) taken.push(text);
    expect(changed.length).toBeGreaterThan(3_000);
    expect(taken).toEqual([]);
  });

  it("is refused when cut short or lengthened", async () => {
    expect(await refused(cursor.slice(0, -1))).toBe(true);
    expect(await refused(`${cursor}A`)).toBe(true);
    expect(await refused(cursor.slice(1))).toBe(true);
  });
});
