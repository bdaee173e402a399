/**
 * How `npm run import -- --workflow` (and `--pull`) follows a load it
 * started: it asks the session for the instance's status beside reading the
 * load's own progress record, and stops following only when neither has
 * said anything for long. A CI run once saw a load write all its ranges
 * while the session answered nothing for its instance, and the CLI said the
 * load had not started.
 */
import { describe, expect, it } from "vitest";
import { signsOf, statusPoll } from "../../scripts/platformLoad.ts";

describe("a status poll", () => {
  it("takes a question that fails as no answer, says why, and asks again", async () => {
    const answers: (() => Promise<string | null>)[] = [
      () => Promise.reject(new Error("the local session answered 500 for instance x")),
      () => Promise.resolve(null),
      () => Promise.resolve("running"),
    ];
    let asked = 0;
    const poll = statusPoll(() => answers[asked++]!(), 0);
    expect(await poll(5)).toBeUndefined();
    expect(poll.error()).toBe("the local session answered 500 for instance x");
    expect(await poll(5)).toEqual({ state: null });
    expect(poll.error()).toBeUndefined();
    expect(await poll(5)).toEqual({ state: "running" });
    expect(asked).toBe(3);
  });

  it("keeps one question out at a time, answered on a later call if it is slow", async () => {
    let release: (state: string) => void = () => {};
    let asked = 0;
    const poll = statusPoll(() => {
      asked += 1;
      return new Promise<string>((resolve) => {
        release = resolve;
      });
    }, 0);
    expect(await poll(1)).toBeUndefined();
    expect(await poll(1)).toBeUndefined();
    expect(asked).toBe(1);
    release("complete");
    expect(await poll(1)).toEqual({ state: "complete" });
  });
});

describe("a followed load's signs", () => {
  const clock = () => {
    let t = 0;
    return { now: () => t, pass: (ms: number) => (t += ms) };
  };
  /** Still not silent `ms` on, silent a millisecond later. */
  const silentAfter = (signs: ReturnType<typeof signsOf>, time: ReturnType<typeof clock>, ms: number) => {
    time.pass(ms);
    expect(signs.silent()).toBe(false);
    time.pass(1);
    expect(signs.silent()).toBe(true);
  };

  it("are silent a minute after the start when there is no record and no status", () => {
    const time = clock();
    const signs = signsOf(time.now);
    signs.progress(undefined);
    silentAfter(signs, time, 60_000);
    expect(signs.silence("the load", "the session", undefined).message).toContain("did not start");
  });

  it("count a record that moves, though the session never answers for the instance", () => {
    const time = clock();
    const signs = signsOf(time.now);
    for (let done = 0; done < 10; done++) {
      time.pass(50_000);
      signs.progress(`2026-12-03T13:00:${done}Z ${done}`);
      expect(signs.silent()).toBe(false);
    }
    // Its record still: five minutes, a step may be long; then silent.
    silentAfter(signs, time, 300_000);
    expect(signs.silence("the load", "the session", undefined).message).toContain("has not moved");
  });

  it("count an instance's status as a sign", () => {
    const time = clock();
    const signs = signsOf(time.now);
    time.pass(59_000);
    signs.answered();
    time.pass(59_000);
    expect(signs.silent()).toBe(false);
  });

  it("name the silence and the session's last failed answer", () => {
    const signs = signsOf(clock().now);
    expect(
      signs.silence("the load of incoming/a.ndjson", "the local session on port 8787", "answered 500").message,
    ).toBe(
      "the load of incoming/a.ndjson did not start within a minute on the local session on port 8787 (its last answer: answered 500)",
    );
    signs.progress("2026-12-03T13:00:00Z 0");
    expect(signs.silence("the load of incoming/a.ndjson", "the local session on port 8787", undefined).message).toBe(
      "the load of incoming/a.ndjson has not moved for five minutes, and the local session on port 8787 has not said how it stands",
    );
  });
});
