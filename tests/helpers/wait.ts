/**
 * Polls until the check returns a value other than undefined/false, or fails after the timeout
 * naming what it waited for (`what` as a function: read at the timeout, to tell what was seen last).
 */
export async function waitFor<T> (check: () => Promise<T | undefined | false> | T | undefined | false, { timeoutMs = 10_000, intervalMs = 25, what = 'condition' as string | (() => string) } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what}`)
    await new Promise(resolve => setTimeout(resolve, intervalMs))
  }
}
