import { describe, expect, it } from 'vitest'
import type { RegisteredRoute } from '../../src/route-methods.js'
import { Browser, userIn } from '../dashboard/helpers.js'
import { useGateway } from '../helpers/use-gateway.js'
import { generator, hostileHeaders, hostileQuery, hostileSegment, type Random } from './corpus.js'
import { rawRequest } from './raw-http.js'

const ROUNDS = Number(process.env.HOSTILE_ROUNDS ?? 5000)
const SEED = Number(process.env.HOSTILE_SEED ?? Date.now() % 1_000_000)
const METRICS_TOKEN = 'metrics-token-for-the-hostile-fuzz'
const CONCURRENCY = 4

const BIDI_CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/
/** A page that reflects a bidi control from the query anywhere but in a <bdi> or an input's value (what the form sends back). */
function unisolatedBidi (body: string): boolean {
  return BIDI_CONTROL.test(body) && BIDI_CONTROL.test(body.replace(/<bdi>[^<]*<\/bdi>/g, '').replace(/<input [^>]*>/g, ''))
}

interface Probe { route: string, target: string, headers: [string, string][] }

describe('hostile query strings and headers on every GET route and dashboard page', () => {
  const ctx = useGateway({ env: { METRICS_TOKEN } })

  it(`answers ${ROUNDS} hostile requests without a 5xx (HOSTILE_SEED=${SEED})`, async () => {
    const { app, url } = ctx.gateway
    const browser = await Browser.signIn(app, await userIn(app, ctx.workspace.workspaceId))
    const sent = await fetch(`${url}/api/messages.php`, { method: 'POST', headers: { authorization: ctx.workspace.authorization, 'content-type': 'application/json' }, body: JSON.stringify({ to: '15551234567', body: 'hi' }) })
    const messageId = (await sent.json() as { id: string }).id
    // every GET route the app has, whoever added it: a new route is fuzzed without touching this file
    const routes = app.registeredRoutes.filter(route => route.method === 'GET')
    expect(routes.length).toBeGreaterThan(15)

    const random = generator(SEED)
    const credentials = (route: RegisteredRoute) => ({
      authorization: route.url.startsWith('/api/') ? ctx.workspace.authorization : route.url === '/metrics' ? `Bearer ${METRICS_TOKEN}` : undefined,
      cookie: route.url.startsWith('/dashboard') ? browser.cookie : undefined
    })
    const pathOf = (route: RegisteredRoute, random: Random, hostile: boolean) => route.url.split('/').map(part =>
      part.startsWith(':') ? (hostile ? hostileSegment(random) : messageId) : part === '*' ? (hostile ? hostileSegment(random) : 'index.html') : part).join('/')

    const probes: Probe[] = []
    // the cases named in the issue, on every route, then random ones to ROUNDS
    for (const route of routes) {
      const { authorization, cookie } = credentials(route)
      const base: [string, string][] = [...(authorization ? [['authorization', authorization] as [string, string]] : []), ...(cookie ? [['cookie', cookie] as [string, string]] : [])]
      for (const name of [...route.queryNames, 'next']) {
        for (const value of ['%00', '%ED%A0%80', '%C0%AF', '0000-01-01', '1e309', '/dashboard/€', '/dashboard/%E2%82%AC', 'abc%E2%80%AEdef']) {
          probes.push({ route: route.url, target: `${pathOf(route, random, false)}?${name}=${value}`, headers: base })
        }
        probes.push({ route: route.url, target: `${pathOf(route, random, false)}?${name}=1&${name}=2`, headers: base })
      }
      probes.push({ route: route.url, target: `${pathOf(route, random, true)}`, headers: base })
    }
    const fixed = probes.length
    for (let i = 0; probes.length < Math.max(ROUNDS, fixed); i++) {
      const route = routes[i % routes.length]
      const { authorization, cookie } = credentials(route)
      const query = random.chance(0.95) ? `?${hostileQuery(random, route.queryNames)}` : ''
      const target = `${pathOf(route, random, random.chance(0.1))}${query}`
      probes.push({ route: route.url, target, headers: hostileHeaders(random, authorization, cookie) })
    }

    const failures: string[] = []
    let next = 0
    const worker = async () => {
      while (next < probes.length) {
        const probe = probes[next++]
        try {
          const response = await rawRequest(url, { target: probe.target, headers: probe.headers })
          if (response.status >= 500 || !(response.status >= 200)) failures.push(`${response.status} ${probe.target.slice(0, 160)} ${JSON.stringify(probe.headers.map(([name]) => name))} ${response.body.slice(0, 200)}`)
          else if (unisolatedBidi(response.body)) failures.push(`a bidi control outside <bdi>: ${probe.target.slice(0, 160)}`)
        } catch (error) {
          failures.push(`no answer: ${probe.target.slice(0, 160)} ${(error as Error).message.slice(0, 200)}`)
        }
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, worker))
    expect(failures.slice(0, 30), `${failures.length} of ${probes.length} probes failed (HOSTILE_SEED=${SEED})`).toEqual([])
  }, 180_000)
})
