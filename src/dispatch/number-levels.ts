const TTL_MS = 60_000

/** The throughput level of a number, read once a minute at most: it changes rarely and a send should not wait on it. */
export function cachedLevels (read: (phoneNumberId: string) => Promise<{ throughputLevel: string | null } | undefined>) {
  const cache = new Map<string, { level: string | null | undefined, at: number }>()
  return async function levelOf (phoneNumberId: string): Promise<string | null | undefined> {
    const hit = cache.get(phoneNumberId)
    if (hit && Date.now() - hit.at < TTL_MS) return hit.level
    const level = (await read(phoneNumberId))?.throughputLevel
    cache.set(phoneNumberId, { level, at: Date.now() })
    return level
  }
}
