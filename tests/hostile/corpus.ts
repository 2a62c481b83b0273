/** mulberry32: a seeded generator, so a failing run replays with HOSTILE_SEED. */
export function generator (seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (max: number) => Math.floor(next() * max)
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]
  return { next, int, pick, chance: (p: number) => next() < p }
}

export type Random = ReturnType<typeof generator>

/** Query and path values as they go on the wire (already percent-encoded where they are meant to be). */
export const HOSTILE_VALUES: readonly string[] = [
  '%00', 'a%00b', '%00%00%00', '%ED%A0%80', '%ED%B0%80x', 'x%ED%A0%80', '%uD800', '%C0%AF', '%C0%80', '%E2%82', '%FF', '%FE%FF',
  '%', '%%', '%G0', '%2', 'a%', '%25', '%E2%82%AC', '%F0%9F%98%80', '%F4%90%80%80', '%EF%BF%BF', '%0D%0A', '%0A', '%7F', '%1B',
  '0000-01-01', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '+275760-09-13T00:00:00.001Z', '-271821-04-20T00:00:00Z',
  '2024-02-30', '2024-13-01', '2024-01-01T25:61:61Z', '1970-01-01', '10000-01-01', '2024-01-01T00:00:00+99:99', '2024-01-01 00:00:00 00:00',
  '0', '-1', '-0', '1e309', '1e-400', 'NaN', 'Infinity', '-Infinity', '0x10', '1.5', '9007199254740993', '99999999999999999999999999999999',
  '18446744073709551616', '2147483648', '-2147483649', '1_000', ' 1', '1 ', '٣', '１', '',
  '__proto__', 'constructor', 'toString', 'hasOwnProperty', '%2F..%2F..%2Fetc%2Fpasswd', '../../etc/passwd', '..%2F', '%2e%2e%2f',
  'msg_', 'msg_%00', 'wamid.%00', "'%20OR%201=1--", '%27%3B%20drop%20table%20messages%3B--', '%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E',
  'javascript:alert(1)', '//evil.example', '/%2F%2Fevil.example', '/dashboard/%E2%82%AC', '/dashboard/€', '/dashboard/%00', '/dashboard/%ZZ',
  '/dashboard/..%2F..%2F', '%2Fdashboard%2F%E2%82%AC', 'https://evil.example/', '/dashboard\\evil', '/\t/evil.example',
  '%E2%80%AE', 'abc%E2%80%AEdef', '%E2%81%A6x', '%E2%80%8F%D7%90', '%D8%9C',
  'read', 'sent', 'failed', 'SENT', '15551234567', '+15551234567', '%2B15551234567', 'x'.repeat(3000), '%41'.repeat(2000)
]

const NAMES = ['id', 'before', 'after', 'wamid', 'status', 'to', 'since', 'until', 'limit', 'cursor', 'next', 'page', 'q', 'client_reference', 'type', 'action',
  'hub.mode', 'hub.verify_token', 'hub.challenge', 'signed_out', 'event', 'actor', 'media_id', '__proto__', 'constructor[prototype][x]',
  '__proto__[polluted]', 'a[b][c]', 'x[]', '%00', '%ED%A0%80', '%C0%AF', '%', '']

/** Raw bytes that no percent-encoding hides: a UTF-8 lone surrogate, an over-long encoding, latin-1, a NUL. */
const RAW_BYTES = ['\xed\xa0\x80', '\xc0\xaf', '\xff\xfe', '\xe9', '\x00', '\x7f', ' ', '"', '<', '#', '\\']

/** A hostile query string, or undefined for none; `names` are the route's own parameters, fuzzed more often. */
export function hostileQuery (random: Random, names: readonly string[]): string {
  const count = random.chance(0.02) ? 500 + random.int(1500) : 1 + random.int(4)
  const pairs: string[] = []
  for (let i = 0; i < count; i++) {
    const name = names.length > 0 && random.chance(0.7) ? random.pick(names) : random.pick(NAMES)
    const value = random.chance(0.1) ? random.pick(RAW_BYTES) + random.pick(HOSTILE_VALUES) : random.pick(HOSTILE_VALUES)
    // repeated parameters: the same name again
    pairs.push(random.chance(0.05) ? name : `${name}=${value}`)
    if (random.chance(0.15)) pairs.push(`${name}=${random.pick(HOSTILE_VALUES)}`)
  }
  return pairs.join(random.chance(0.05) ? ';' : '&')
}

/** A path parameter's hostile value. */
export function hostileSegment (random: Random): string {
  return random.pick(['%00', '%C0%AF', '%ED%A0%80', '%', '%ZZ', '..', '%2E%2E', 'x'.repeat(5000), 'msg_x', '-1', '1e309', random.pick(RAW_BYTES).replace(/[ #]/g, '%20'), 'a%2Fb', '__proto__', '%E2%82%AC'])
}

const AUTHORIZATIONS = ['Bearer', 'Bearer ', 'Bearer \xff\xfe', 'Basic Zm9vOmJhcg==', 'Bearer ' + 'a'.repeat(9000), 'Bearer ob_live_\xed\xa0\x80', 'bearer x y z', '\x01']

/** Headers a hostile client adds: repeats, odd bytes, huge values. Authorization is the route's own when given. */
export function hostileHeaders (random: Random, authorization: string | undefined, cookie: string | undefined): [string, string][] {
  const headers: [string, string][] = []
  if (authorization && random.chance(0.85)) headers.push(['authorization', authorization])
  if (cookie && random.chance(0.85)) headers.push(['cookie', cookie])
  for (let i = random.int(4); i > 0; i--) {
    switch (random.int(14)) {
      case 0: headers.push(['authorization', random.chance(0.5) && authorization ? authorization : random.pick(AUTHORIZATIONS)]); break
      case 1: headers.push(['content-type', random.pick(['application/json', 'text/plain', '\xff/\xfe', 'multipart/form-data; boundary=', ''])]); break
      case 2: headers.push(['idempotency-key', random.pick(['a', '"a"', '\xff', '', 'k'.repeat(300)])]); break
      case 3: headers.push(['cookie', random.pick(['outbound_session=%FF', 'outbound_session=', 'outbound_session=a; outbound_session=b', '=;=;', 'outbound_signin_csrf=%00', 'a=\xed\xa0\x80'])]); break
      case 4: headers.push(['accept', random.pick(['*/*', 'text/html', 'application/json', '\xff', ''])]); break
      case 5: headers.push(['x-forwarded-for', random.pick(['1.2.3.4', 'not-an-ip', '\xff', '1.2.3.4, 5.6.7.8'])]); break
      case 6: headers.push(['prefer', random.pick(['respond-async', 'respond-async, wait=1e309', '\xff'])]); break
      case 7: headers.push(['accept-encoding', random.pick(['gzip', 'br;q=NaN', '*;q=0', '\xff'])]); break
      case 8: headers.push(['if-none-match', random.pick(['*', '"x"', '\xff', 'W/'])]); break
      case 9: headers.push(['range', random.pick(['bytes=0-', 'bytes=-1', 'bytes=99999999999999999999-', 'bytes=1-0', 'bytes=a-b,\xff'])]); break
      case 10: headers.push(['x-hub-signature-256', random.pick(['sha256=', 'sha256=zz', '\xff'])]); break
      case 11: headers.push(['x-huge', 'h'.repeat(random.int(8000))]); break
      case 12: headers.push(['content-length', random.pick(['0', '-1', '1e3', '0, 0'])]); break
      default: headers.push(['x-\xff', random.pick(['\xed\xa0\x80', 'v'])])
    }
  }
  return headers
}
