/**
 * A Workflow binding's `create()` and `get()` answer a handle to the
 * instance: an RPC result, which keeps its remote reference open until it is
 * disposed (workerd warns when the garbage collector finds one first). The
 * binding's types leave `Symbol.dispose` off the handle, so each caller hands
 * it here once done with it.
 */
export function release(instance: WorkflowInstance | null | undefined): void {
  (instance as Partial<Disposable> | null | undefined)?.[Symbol.dispose]?.();
}
