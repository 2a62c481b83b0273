import { createHash, timingSafeEqual } from 'node:crypto'

/** Compares two secrets in constant time, whatever their lengths (hashing first hides the length too). */
export function sameSecret (presented: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest()
  return timingSafeEqual(digest(presented), digest(expected))
}
