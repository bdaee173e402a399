/**
 * A call made when a view opens (or its parameters change), and its state
 * for rendering. A newer call aborts the older one, so a slow answer to an
 * earlier search never replaces a later one's.
 */
import { useEffect, useState } from "hono/jsx/dom";
import type { Outcome } from "./api.ts";
import type { Problem } from "./problems.ts";

export type Answer<T> =
  | { phase: "idle" }
  | { phase: "loading" }
  | { phase: "done"; body: T; retryAfter: number | undefined }
  | { phase: "failed"; problem: Problem };

/** Runs `load` whenever `key` changes; `load` returning null means nothing to ask (the form is not filled in). */
export function useAnswer<T>(key: string, load: (signal: AbortSignal) => Promise<Outcome<T>> | null): Answer<T> {
  const [answer, setAnswer] = useState<Answer<T>>({ phase: "idle" });
  useEffect(() => {
    const controller = new AbortController();
    const pending = load(controller.signal);
    if (pending === null) {
      setAnswer({ phase: "idle" });
      return;
    }
    setAnswer({ phase: "loading" });
    pending.then((outcome) => {
      if (controller.signal.aborted) return;
      setAnswer(
        outcome.ok
          ? { phase: "done", body: outcome.body, retryAfter: outcome.retryAfter }
          : { phase: "failed", problem: outcome.problem },
      );
    });
    return () => controller.abort();
  }, [key]);
  return answer;
}
