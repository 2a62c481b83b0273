import { sql } from 'drizzle-orm'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUser } from '../../src/dashboard/accounts.js'
import { MARKETING, messageOf, sendTo, UTILITY } from '../audience/helpers.js'
import { connectedWorkspace, startGateway, type ConnectedWorkspace, type TestGateway } from '../helpers/gateway.js'
import { waitFor } from '../helpers/wait.js'
import { chromiumAvailable, collectCspViolations, launchBrowser, signIn, type TestBrowser } from './browser.js'

/** Audience → Suppressions and Usage, and a held message, as a person sees them in Chromium under the dashboard's CSP. */
describe.skipIf(!chromiumAvailable)('audience pages in a real browser', () => {
  let gateway: TestGateway
  let workspace: ConnectedWorkspace
  let browser: TestBrowser
  let page: Page
  const violations: string[] = []

  const nav = (name: string) => page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true })

  beforeAll(async () => {
    gateway = await startGateway()
    workspace = await connectedWorkspace(gateway, 'growth')
    const created = await createUser(gateway.app, { workspaceId: workspace.workspaceId, email: 'audience@acme.test' })
    browser = await launchBrowser(gateway.url)
    page = browser.context.pages()[0] ?? await browser.context.newPage()
    collectCspViolations(page, violations)
    await signIn(page, gateway.url, { email: created.user.email, password: created.password })
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await gateway?.close()
  })

  it('Suppressions: adds a recipient by hand, lists it with its reason, removes it (audited)', async () => {
    await nav('Suppressions').click()
    await page.getByLabel('Phone number').fill('+1 555 777 0001')
    await page.getByRole('button', { name: 'Add' }).click()
    const row = page.locator('tr[data-suppression="15557770001"]')
    await expect.poll(() => row.count()).toBe(1)
    expect(await row.locator('[data-field="reason"]').textContent()).toBe('Added by hand')
    await row.getByRole('button', { name: 'Remove' }).click()
    await expect.poll(() => page.locator('tr[data-suppression="15557770001"]').count()).toBe(0)
    const actions = (await gateway.app.auditLog.page(workspace.workspaceId, { limit: 10 })).map(entry => `${entry.actorKind} ${entry.action}`)
    expect(actions).toEqual(expect.arrayContaining(['dashboard suppression.added', 'dashboard suppression.removed']))
    await page.getByLabel('Phone number').fill('not a number')
    await page.getByRole('button', { name: 'Add' }).click()
    await expect.poll(() => page.locator('main').textContent()).toContain('Give a phone number')
  })

  it('Usage: messages per day by category as an SVG chart, and the messaging limit as a gauge per number', async () => {
    const ids: string[] = []
    for (const to of ['15557780001', '15557780002']) ids.push((await sendTo(gateway, workspace, to, UTILITY)).json().id as string)
    ids.push((await sendTo(gateway, workspace, '15557780003', MARKETING)).json().id as string)
    await waitFor(async () => (await Promise.all(ids.map(async id => await messageOf(gateway, workspace, id)))).every(message => message.pricing !== null), { timeoutMs: 15_000, what: 'priced' })
    await nav('Usage').click()
    await page.waitForURL('**/dashboard/usage')
    expect(await page.locator('svg.usage-chart rect[data-category="utility"]').count()).toBe(1)
    expect(await page.locator('svg.usage-chart rect[data-category="marketing"]').count()).toBe(1)
    expect(await page.locator('[data-field="messages"]').textContent()).toBe('3')
    const gauges = page.locator('figure[data-gauge]')
    expect(await gauges.count()).toBe(workspace.connection.phone_numbers.length)
    expect(await gauges.first().locator('[data-field="used"]').textContent()).toBe('3')
    expect(await gauges.first().locator('[data-field="limit"]').textContent()).toBe('2000')
    expect(await page.locator('svg.limit-gauge').first().isVisible()).toBe(true)
  })

  it('a held message shows held and why on its page', async () => {
    await gateway.app.database.db.execute(sql`insert into cooldowns (workspace_id, recipient, until) values (${workspace.workspaceId}, '15557790001', now() + interval '1 hour')`)
    const id = (await sendTo(gateway, workspace, '15557790001', MARKETING, { prefer: 'respond-async' })).json().id as string
    await waitFor(async () => (await messageOf(gateway, workspace, id)).status === 'held', { timeoutMs: 15_000, what: 'held' })
    await page.goto(`${gateway.url}/dashboard/messages/${id}`)
    expect(await page.locator('[data-field="status"]').first().textContent()).toBe('held')
    expect(await page.locator('[data-field="detail"]').textContent()).toContain('cooldown')
    expect(violations).toEqual([])
  })
})
