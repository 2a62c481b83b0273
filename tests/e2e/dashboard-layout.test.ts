import { sql } from 'drizzle-orm'
import { mkdir } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { syncWorkspaceTemplates } from '../../src/connections/connect.js'
import { createUser } from '../../src/dashboard/accounts.js'
import { formatTime } from '../../src/dashboard/parts.js'
import { addEndpoint } from '../../src/events/endpoints.js'
import { newId } from '../../src/store/ids.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { chromiumAvailable, launchBrowser, type TestBrowser } from './browser.js'
import { getRoutes, matches } from './dashboard-routes.js'

const SCREENSHOTS = fileURLToPath(new URL('../screenshots/layout/', import.meta.url))
const WIDTHS = [1280, 390] as const
const HEIGHT = { 1280: 860, 390: 844 } as const

const account = defaultAccount()
const [firstNumber, secondNumber] = account.phoneNumbers
const TO = { delivered: '15550001001', failed: '15550001002', queued: '15550001003' }
// Long template names: each must stay one word on a phone, whatever the column widths.
const LONG_TEMPLATES = [
  { name: 'seasonal_clearance_announcement_extended', language: 'en_US', status: 'PENDING', category: 'MARKETING', components: [{ type: 'BODY', text: 'Our clearance sale runs until {{1}}.' }] },
  { name: 'appointment_rescheduling_confirmation', language: 'pt_BR', status: 'APPROVED', category: 'UTILITY', components: [{ type: 'BODY', text: 'Sua consulta foi remarcada para {{1}}.' }] }
]

interface PageFacts { scrollWidth: number, clientWidth: number, favicon: string | null, brokenNames: string[], cutBadges: string[] }

// Runs in the page (the tests type-check without the DOM's types).
const PAGE_FACTS = `(() => {
  // A template name may wrap after an underscore only: find each line break, character by character.
  function brokenInsideAPart (element) {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT)
    let previous
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let index = 0; index < node.data.length; index++) {
        const range = document.createRange()
        range.setStart(node, index)
        range.setEnd(node, index + 1)
        const box = range.getClientRects()[0]
        if (!box) continue
        if (previous && box.top > previous.top + 1 && previous.character !== '_') return true
        previous = { top: box.top, character: node.data[index] }
      }
    }
    return false
  }
  const root = document.scrollingElement
  const names = [...document.querySelectorAll('.template-name')]
  const badges = [...document.querySelectorAll('.badge')].filter(badge => badge.getClientRects().length > 0)
  return {
    scrollWidth: root.scrollWidth,
    clientWidth: root.clientWidth,
    favicon: document.querySelector('link[rel~="icon"]')?.getAttribute('href') ?? null,
    brokenNames: names.filter(brokenInsideAPart).map(name => name.textContent),
    // a badge narrower than its text is cut ("PE" for PENDING)
    cutBadges: badges.filter(badge => badge.scrollWidth > badge.clientWidth + 1 || badge.getBoundingClientRect().width < 24).map(badge => badge.textContent)
  }
})()`

/**
 * Every dashboard page, found from the app's own routes (a page added later is covered without
 * being listed), in Chromium at a desktop and a phone width: nothing scrolls sideways, template
 * names and status badges are whole, the favicon is linked, and the navigation shows where one is.
 * Then what the pages say: a failed, a queued and a delivered message, the overview's counts, the
 * log's wording, the API reference's way back, and one outgoing-webhook delivery with its attempts.
 */
describe.skipIf(!chromiumAvailable)('every dashboard page in Chromium at 390 and 1280 px', () => {
  // The webhook receiver refuses each event's first attempt (HTTP 500) and takes the second.
  const seen = new Map<string, number>()
  const receiver: Server = createServer((request, response) => {
    const id = String(request.headers['webhook-id'])
    const count = (seen.get(id) ?? 0) + 1
    seen.set(id, count)
    request.resume()
    response.writeHead(count === 1 ? 500 : 200).end(count === 1 ? 'try again' : 'ok')
  })
  const ctx = useGateway({ env: { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '200,200' } })
  const ids = { failed: '', queued: '', delivered: '', delivery: '', endpointUrl: '', campaign: '', upload: '' }
  let login: { email: string, password: string }
  let browser: TestBrowser
  let page: Page

  const url = (path: string) => `${ctx.gateway.url}${path}`
  const shot = async (name: string) => { await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true }) }
  const api = async (body: object, headers: Record<string, string> = {}) => await fetch(url('/api/messages.php'), {
    method: 'POST', headers: { authorization: ctx.workspace.authorization, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body)
  })
  const record = async (id: string) => (await ctx.gateway.app.messages.get(id))!
  const main = async () => (await page.locator('main').innerText()).replace(/\s+/g, ' ')
  // screenshots are named by what a page shows, not by generated ids
  const named = (path: string) => Object.entries(ids).reduce((name, [kind, id]) => id ? name.replace(id, kind) : name, path)
  const historyStatuses = async () => await page.locator('[data-history] [data-field="status"]').allTextContents()

  beforeAll(async () => {
    const { app, emulator } = ctx.gateway
    const { workspaceId } = ctx.workspace
    await new Promise<void>(resolve => receiver.listen(0, '127.0.0.1', resolve))
    ids.endpointUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/outbound-events`
    await addEndpoint(app, { workspaceId, url: ids.endpointUrl })
    emulator.setTemplates(account.wabaId, [...account.templates, ...LONG_TEMPLATES])
    await syncWorkspaceTemplates(app.connectDeps, workspaceId)

    // delivered: the upstream reports sent and delivered, never read
    emulator.setStatusOptions({ recipient: TO.delivered }, { statuses: ['sent', 'delivered'] })
    const delivered = await api({ to: TO.delivered, body: 'Your parcel is on its way', phone_number_id: firstNumber.id })
    ids.delivered = (await delivered.json() as { id: string }).id
    await waitFor(async () => (await record(ids.delivered)).status === 'delivered', { what: 'the delivered message' })

    // failed: the upstream refuses it outright (131026, undeliverable), so it is never sent nor priced
    emulator.setFaults({ recipient: TO.failed }, { permanent: { code: 131026, httpStatus: 400, details: 'Message Undeliverable.' } })
    const failed = await api({ to: TO.failed, body: 'This one cannot arrive', phone_number_id: firstNumber.id })
    expect(failed.status).toBeGreaterThanOrEqual(400)
    ids.failed = (await app.messages.list(workspaceId, { limit: 10 })).find(message => message.recipient === TO.failed)!.id
    expect(await record(ids.failed)).toMatchObject({ status: 'failed' })

    // queued: another process holds the second number's queue, so the message waits
    await app.database.db.execute(sql`insert into job_groups (name, group_key, holder, lease_expires_at) values ('number-drains', ${secondNumber.id}, 'dsp_elsewhere', now() + interval '1 hour')`)
    const queued = await api({ to: TO.queued, body: 'Later, please', phone_number_id: secondNumber.id }, { prefer: 'respond-async' })
    expect(queued.status).toBe(202)
    ids.queued = (await queued.json() as { id: string }).id

    await emulator.injectInbound({ phoneNumberId: firstNumber.id, from: TO.delivered, type: 'text', payload: { body: 'Thanks, got it' } })

    // the failed message's event, refused once by the receiver and then taken
    const delivery = await waitFor(async () => {
      const deliveries = await app.webhooks.deliveries(workspaceId, { limit: 50 })
      return deliveries.find(candidate => candidate.type === 'message.failed' && candidate.status === 'delivered' && candidate.attempts === 2)
    }, { timeoutMs: 20_000, what: 'the message.failed delivery, refused once then taken' })
    ids.delivery = delivery.id

    // a campaign with a long name, scheduled (it stays as it is), and a CSV upload awaiting confirmation
    const campaign = {
      id: newId('cmp'), workspaceId, apiKeyId: null, name: 'Seasonal clearance for every customer who ordered last winter', template: 'order_confirmation', language: 'en_US', category: 'UTILITY',
      phoneNumberId: firstNumber.id, sendAt: new Date(Date.now() + 86_400_000), rejected: 1, skipped: 0, rejections: [{ row: 2, field: 'to', error: 'to must be an international number: optional +, then 7–15 digits' }]
    }
    const recipients = [{ to: '15550002001', variables: ['A-1'], clientReference: 'a-very-long-client-reference-that-must-wrap-on-a-phone-0001' }]
    ids.campaign = (await app.campaigns.create(campaign, recipients)).id
    ids.upload = (await app.campaignUploads.save(workspaceId, 'usr_layout', { campaign: { ...campaign, id: newId('cmp') }, recipients })).id

    const created = await createUser(app, { workspaceId, email: 'layout@acme.test' })
    login = { email: created.user.email, password: created.password }
    await mkdir(SCREENSHOTS, { recursive: true })
    browser = await launchBrowser(ctx.gateway.url)
    page = browser.context.pages()[0] ?? await browser.context.newPage()
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await new Promise(resolve => receiver.close(resolve))
  })

  /** What must hold on any dashboard page at any width. */
  async function checkLayout (path: string, width: 390 | 1280) {
    await page.setViewportSize({ width, height: HEIGHT[width] })
    const response = await page.goto(url(path))
    expect(response?.status(), path).toBeLessThan(400)
    const facts = await page.evaluate(PAGE_FACTS) as PageFacts
    const where = `${path} at ${width} px`
    expect(facts.scrollWidth, `${where} scrolls sideways`).toBeLessThanOrEqual(facts.clientWidth)
    expect(facts.favicon, `${where} links no favicon`).toMatch(/^\/dashboard\/assets\/favicon\.svg/)
    expect(facts.brokenNames, `${where}: template names broken inside a word`).toEqual([])
    expect(facts.cutBadges, `${where}: badges cut`).toEqual([])
    await checkNavigation(where, width)
    await shot(`${named(path).replace(/^\/dashboard\/?/, '').replace(/[^a-z0-9]+/gi, '-') || 'overview'}-${width}`)
  }

  /** The active item can be seen: in the sidebar on a desktop, in the opened menu on a phone (whose closed bar names it). */
  async function checkNavigation (where: string, width: 390 | 1280) {
    const nav = page.getByRole('navigation', { name: 'Dashboard' })
    if (await nav.count() === 0) return // sign-in and error pages before it have none
    const active = nav.locator('[aria-current="page"]')
    const hasActive = await active.count() === 1
    if (width === 390) {
      const summary = nav.locator('summary')
      expect(await summary.isVisible(), `${where}: the menu button`).toBe(true)
      // closed, the menu is one short bar: no blank band under it
      expect((await nav.boundingBox())!.height, `${where}: the closed menu's height`).toBeLessThan(80)
      if (hasActive) expect(await summary.innerText(), `${where}: the bar names the section`).toContain(await active.innerText())
      await summary.click()
    }
    if (hasActive) {
      expect(await active.isVisible(), `${where}: the active item`).toBe(true)
      const box = (await active.boundingBox())!
      expect(box.x, `${where}: the active item on screen`).toBeGreaterThanOrEqual(0)
      expect(box.x + box.width, `${where}: the active item on screen`).toBeLessThanOrEqual(width)
    }
    if (width === 390) {
      if (where.startsWith('/dashboard at')) await shot('menu-open-390')
      await nav.locator('summary').click()
    }
  }

  it('the sign-in page fits both widths, and / leads to the dashboard', async () => {
    for (const width of WIDTHS) await checkLayout('/dashboard/login', width)
    const home = await fetch(url('/'), { redirect: 'manual' })
    expect(home.status).toBe(302)
    expect(home.headers.get('location')).toBe('/dashboard')
    await page.goto(url('/'))
    expect(new URL(page.url()).pathname).toBe('/dashboard/login')
    const icon = await fetch(url((await page.locator('link[rel~="icon"]').getAttribute('href'))!))
    expect(icon.status).toBe(200)
    expect(icon.headers.get('content-type')).toBe('image/svg+xml')
    expect(await icon.text()).toContain('<svg')

    await page.getByLabel('Email').fill(login.email)
    await page.getByLabel('Password').fill(login.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL('**/dashboard')
  })

  it('every dashboard page, found from the routes, fits 390 and 1280 px', async () => {
    const samples: Record<string, string[]> = {
      '/dashboard/messages/:id': [ids.failed, ids.queued, ids.delivered].map(id => `/dashboard/messages/${id}`),
      '/dashboard/webhooks/deliveries/:id': [`/dashboard/webhooks/deliveries/${ids.delivery}`],
      '/dashboard/campaigns/:id': [`/dashboard/campaigns/${ids.campaign}`],
      '/dashboard/campaigns/uploads/:id': [`/dashboard/campaigns/uploads/${ids.upload}`],
      '/dashboard/templates/:id/edit': [`/dashboard/templates/${account.templates[1].id}/edit`],
      '/dashboard/conversations/:number/:person': [`/dashboard/conversations/${firstNumber.id}/${TO.delivered}`]
    }
    // GET routes under /dashboard that answer no page: files and the live pages' JSON
    const notPages = ['/dashboard/assets/:name', '/dashboard/inbound/media/:id', '/dashboard/messages/:id/status', '/dashboard/campaigns/:id/status']
    const routes = getRoutes(ctx.gateway.app).filter(route => route.startsWith('/dashboard') && !notPages.includes(route))
    expect(routes).toContain('/dashboard/messages/:id')
    const paths: string[] = []
    for (const route of routes) {
      if (!route.includes(':')) {
        // a static route may still be JSON (the live list): only pages are checked
        const answer = await page.request.get(url(route), { maxRedirects: 0 })
        if ((answer.headers()['content-type'] ?? '').startsWith('text/html') || answer.status() === 303) paths.push(route)
        continue
      }
      const concrete = samples[route]
      expect(concrete, `no sample for the page ${route}: add one to this test's samples`).toBeDefined()
      paths.push(...concrete.filter(path => matches(route, path)))
    }
    expect(paths.length).toBeGreaterThanOrEqual(12)
    for (const path of paths) {
      for (const width of WIDTHS) await checkLayout(path, width)
    }
  }, 300_000) // every page at two widths (templates' and conversations' among them): on a loaded machine well over the default 90 s
  it('a failed message: its history ends in failed with the error said once, and no price is promised', async () => {
    await page.setViewportSize({ width: 1280, height: 860 })
    await page.goto(url(`/dashboard/messages/${ids.failed}`))
    const statuses = await historyStatuses()
    expect(statuses.at(-1)).toBe('failed')
    const error = (await page.locator('[data-history] tr').last().locator('[data-field="error"]').innerText()).trim()
    expect(error).toMatch(/^131026: \S/)
    const text = await main()
    expect(text.split('131026').length - 1, 'the error code is said once').toBe(1)
    expect(text).not.toContain('No status reported yet')
    expect(text).not.toMatch(/not reported yet/i)
    expect(await page.locator('.facts [data-field="pricing"]').innerText()).toBe('None: a failed message is not charged')
  })

  it('a queued message says it is queued, since when and where', async () => {
    await page.goto(url(`/dashboard/messages/${ids.queued}`))
    const queuedAt = formatTime((await record(ids.queued)).createdAt)
    const text = await main()
    expect(text).toContain(`Queued at ${queuedAt}`)
    expect(text).toContain(secondNumber.displayPhoneNumber)
    expect(await page.locator('.facts [data-field="status"]').innerText()).toBe('queued')
    expect(await page.locator('.facts [data-field="pricing"]').innerText()).toBe('None yet: priced once it is sent')
  })

  it('a delivered message: delivered in its history, with how WhatsApp priced it in plain words', async () => {
    await page.goto(url(`/dashboard/messages/${ids.delivered}`))
    // the order of the steps is the API's history's (GET /api/messages.php?id=): the page shows exactly that
    expect(await historyStatuses()).toContain('delivered')
    expect(await page.locator('.facts [data-field="pricing"]').innerText()).toBe('Customer service reply')
    expect(await main()).not.toContain('Queued at')
  })

  it('the overview counts each message in every step it reached, and says so', async () => {
    await page.goto(url('/dashboard'))
    const stats = Object.fromEntries(await Promise.all((await page.locator('.stats > div').all()).map(async stat =>
      [await stat.locator('dt').innerText(), Number(await stat.locator('dd').first().innerText())])))
    // delivered: sent and delivered; failed at the upstream's refusal: never sent; queued: waiting
    expect(stats).toEqual({ Sent: 1, Delivered: 1, Read: 0, Failed: 1, Waiting: 1 })
    expect(await main()).toContain('Each message counts in every step it reached')
  })

  it('the message log speaks plainly: no "pricing: service"', async () => {
    await page.goto(url('/dashboard/messages'))
    const text = await main()
    expect(text).not.toMatch(/pricing:/i)
    expect(await page.locator(`tr[data-id="${ids.delivered}"] [data-field="detail"]`).innerText()).toBe('Customer service reply')
    expect(await page.locator(`tr[data-id="${ids.failed}"] [data-field="detail"]`).innerText()).toMatch(/^131026: \S/)
  })

  it('the API reference has a way back to the dashboard and the same icon', async () => {
    await page.goto(url('/docs'))
    const back = page.getByRole('link', { name: 'Back to the dashboard' })
    await back.waitFor()
    expect(await page.locator('link[rel="icon"]').getAttribute('type')).toBe('image/svg+xml')
    await back.click()
    await page.waitForURL('**/dashboard')
  })

  it('the deliveries name their endpoint, and one delivery shows its attempts, their answers and the body as stored', async () => {
    await page.goto(url('/dashboard/webhooks'))
    const row = page.locator(`tr[data-delivery-id="${ids.delivery}"]`)
    expect(await page.locator('.card', { hasText: 'Recent deliveries' }).locator('th').allInnerTexts()).toContain('ENDPOINT')
    expect(await row.innerText()).toContain(ids.endpointUrl)
    await row.getByRole('link', { name: 'Details' }).click()
    await page.waitForURL(`**/dashboard/webhooks/deliveries/${ids.delivery}`)
    const attempts = await page.locator('.card', { hasText: 'Attempts' }).locator('tbody tr').allInnerTexts()
    expect(attempts).toHaveLength(2)
    expect(attempts[0]).toMatch(/^1\s.*HTTP 500\s+retried later$/)
    expect(attempts[1]).toMatch(/^2\s.*HTTP 200\s+delivered$/)
    const stored = (await ctx.gateway.app.webhooks.delivery(ids.delivery))!
    expect(await page.locator('pre.body-sent').textContent()).toBe(stored.body)
    expect(JSON.parse(stored.body)).toMatchObject({ type: 'message.failed', data: { id: ids.failed } })
    const text = await main()
    expect(text).toContain(ids.endpointUrl)
    expect(text).toContain(stored.webhookId)
    expect(await page.content()).not.toMatch(/whsec_/)
  })
})
