/** The API's largest batch (POST /v1/lookup, POST /v1/email/batch). */
export const BATCH_SIZE = 100;

/**
 * Calls `call` on consecutive slices of `items` of at most `size`, at most `concurrency` at a time,
 * and returns the results of all slices in input order. The first failure rejects the whole call
 * and aborts the slices still in flight (through the signal passed to `call`); slices already
 * answered were billed by the API.
 */
export async function inBatches<T, R>(
  items: readonly T[],
  /** `start`: the index in `items` of the slice's first item. */
  call: (slice: T[], signal: AbortSignal, start: number) => Promise<R[]>,
  {
    size = BATCH_SIZE,
    concurrency = 4,
    signal,
  }: { size?: number; concurrency?: number; signal?: AbortSignal } = {},
): Promise<R[]> {
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new RangeError('concurrency must be a whole number from 1');
  const slices: T[][] = [];
  for (let i = 0; i < items.length; i += size) slices.push(items.slice(i, i + size));
  const results: R[][] = new Array(slices.length);
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) throw signal.reason;
  signal?.addEventListener('abort', onAbort, { once: true });
  let next = 0;
  const worker = async () => {
    while (next < slices.length && !controller.signal.aborted) {
      const index = next++;
      results[index] = await call(slices[index] as T[], controller.signal, index * size);
    }
  };
  try {
    await Promise.all(
      Array.from({ length: Math.min(concurrency, slices.length) }, () =>
        worker().catch((error: unknown) => {
          controller.abort(error);
          throw error;
        }),
      ),
    );
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  return results.flat();
}
