/**
 * Workflow instance handles are released once used (src/platform/instances.ts):
 * an RPC result keeps its remote reference open until disposed.
 */
import { describe, expect, it } from "vitest";
import { release } from "../src/platform/instances.ts";

describe("releasing a Workflow instance handle", () => {
  it("disposes a handle that can be disposed, once per call", () => {
    let disposed = 0;
    const handle = { id: "load-1", [Symbol.dispose]: () => void disposed++ } as unknown as WorkflowInstance;
    release(handle);
    expect(disposed).toBe(1);
  });

  it("passes over no handle, or one without a disposer (as outside workerd's RPC)", () => {
    expect(() => release(null)).not.toThrow();
    expect(() => release(undefined)).not.toThrow();
    expect(() => release({ id: "load-2" } as unknown as WorkflowInstance)).not.toThrow();
  });
});
