/** Polls until the check returns a value other than undefined/false, or fails after the timeout with the last value seen. */
export async function waitFor<T> (check: () => Promise<T | undefined | false>, { timeoutMs = 10_000, intervalMs = 25, what = 'condition' } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, intervalMs))
  }
}
