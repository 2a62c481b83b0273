import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUser } from '../../src/dashboard/accounts.js'
import { connectedWorkspace, startGateway, type ConnectedWorkspace, type TestGateway } from '../helpers/gateway.js'
import { chromiumAvailable, collectCspViolations, launchBrowser, signIn, type TestBrowser } from './browser.js'

const WIDTHS = [1280, 390] as const
const HEIGHT = { 1280: 860, 390: 844 } as const
// 40 good rows and two bad ones: at 4 messages a second the campaign runs ~10 s, time to pause it
const GOOD = Array.from({ length: 40 }, (_, index) => `+1777880${String(index).padStart(4, '0')},A-${index},ref-${index}`)
const CSV = ['to,1,client_reference', ...GOOD.slice(0, 2), 'not-a-number,A-x,', '+17778809999,,', ...GOOD.slice(2)].join('\n') + '\n'

/** Campaigns → New: a CSV upload, its preview and rejected rows, confirmation, live progress, pause/resume/cancel, in Chromium under the CSP. */
describe.skipIf(!chromiumAvailable)('campaigns in the dashboard, in a real browser', () => {
  let gateway: TestGateway
  let workspace: ConnectedWorkspace
  let browser: TestBrowser
  let page: Page
  const violations: string[] = []

  async function fitsBothWidths (what: string) {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: HEIGHT[width] })
      const facts = await page.evaluate('({ scrollWidth: document.scrollingElement.scrollWidth, clientWidth: document.scrollingElement.clientWidth })') as { scrollWidth: number, clientWidth: number }
      expect(facts.scrollWidth, `${what} at ${width} px scrolls sideways`).toBeLessThanOrEqual(facts.clientWidth)
    }
    await page.setViewportSize({ width: 1280, height: HEIGHT[1280] })
  }

  beforeAll(async () => {
    gateway = await startGateway({ env: { THROUGHPUT_MPS: '4' } })
    workspace = await connectedWorkspace(gateway, 'growth')
    const created = await createUser(gateway.app, { workspaceId: workspace.workspaceId, email: 'campaigns@acme.test' })
    browser = await launchBrowser(gateway.url)
    page = browser.context.pages()[0] ?? await browser.context.newPage()
    collectCspViolations(page, violations)
    await signIn(page, gateway.url, { email: created.user.email, password: created.password })
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await gateway?.close()
  })

  it('a refused upload comes back with the form and why', async () => {
    await page.goto(`${gateway.url}/dashboard/campaigns/new`)
    await fitsBothWidths('the new campaign form')
    await page.getByLabel('Name').fill('No to column')
    await page.getByLabel('Template').selectOption('hello_world')
    await page.getByLabel('CSV file').setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('phone\n+17778800000\n') })
    await page.getByRole('button', { name: 'Preview' }).click()
    await expect.poll(() => page.locator('[data-upload-error]').textContent()).toMatch(/to column/)
    expect(await page.getByLabel('Name').inputValue()).toBe('No to column')
    expect(await gateway.app.campaigns.page(workspace.workspaceId, { limit: 10 })).toMatchObject({ rows: [] })
  })

  it('create → preview (first rows as sent, rejected rows) → confirm → live progress → pause, resume, cancel', async () => {
    await page.goto(`${gateway.url}/dashboard/campaigns`)
    await page.getByRole('link', { name: 'New campaign from a CSV' }).click()
    await page.getByLabel('Name').fill('Spring orders')
    await page.getByLabel('Template').selectOption('order_confirmation')
    await page.getByLabel('Language').fill('en_US')
    await page.getByLabel('CSV file').setInputFiles({ name: 'orders.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) })
    await page.getByRole('button', { name: 'Preview' }).click()
    await page.waitForURL('**/dashboard/campaigns/uploads/cup_*')

    // the preview: nothing created yet, the first messages with their variables filled in, the rejected rows by number
    expect((await gateway.app.campaigns.page(workspace.workspaceId, { limit: 10 }))!.rows).toHaveLength(0)
    expect(await page.locator('[data-field="accepted"]').textContent()).toBe('40')
    expect(await page.locator('[data-field="rejected"]').textContent()).toBe('2')
    const first = page.locator('[data-preview-rows] tbody tr').first()
    expect(await first.innerText()).toContain('Your order A-0 is confirmed.')
    expect(await first.innerText()).toContain('ref-0')
    expect(await page.locator('[data-preview-rows] tbody tr').count()).toBe(10)
    const rejected = await page.locator('[data-rejected-rows] tbody tr').allInnerTexts()
    expect(rejected).toHaveLength(2)
    expect(rejected[0]).toMatch(/^3\s+to\s+to must be an international number/)
    expect(rejected[1]).toMatch(/^4\s+variables\s+/)
    await fitsBothWidths('the preview')

    const uploadUrl = page.url()
    await page.getByRole('button', { name: 'Confirm and create the campaign' }).click()
    await page.waitForURL('**/dashboard/campaigns/cmp_*')
    const id = new URL(page.url()).pathname.split('/').at(-1)!
    const card = page.locator(`[data-campaign-id="${id}"]`)
    // the page is not reloaded: a marker set now survives while the counts move
    await page.evaluate('window.stillThisPage = true')
    await expect.poll(async () => Number(await card.locator('progress').getAttribute('value')), { timeout: 15_000 }).toBeGreaterThan(0)
    await expect.poll(async () => Number(await card.locator('[data-count="delivered"]').textContent()) + Number(await card.locator('[data-count="sent"]').textContent()) + Number(await card.locator('[data-count="read"]').textContent()), { timeout: 15_000 }).toBeGreaterThan(0)
    expect(await page.evaluate('window.stillThisPage')).toBe(true)
    expect(await card.locator('[data-count="rejected"]').textContent()).toBe('2')
    await fitsBothWidths('the campaign page')

    await card.getByRole('button', { name: 'Pause' }).click()
    await expect.poll(() => card.locator('.badge').textContent()).toBe('paused')
    expect(await card.getByRole('button', { name: 'Pause' }).isVisible()).toBe(false)
    const sentWhilePaused = gateway.emulator.sentMessages.length
    await new Promise(resolve => setTimeout(resolve, 1500))
    expect(gateway.emulator.sentMessages.length - sentWhilePaused).toBeLessThanOrEqual(4)

    await card.getByRole('button', { name: 'Resume' }).click()
    await expect.poll(() => card.locator('.badge').textContent()).toMatch(/running|completed/)
    if (await card.locator('.badge').textContent() === 'running') {
      await card.getByRole('button', { name: 'Cancel' }).click()
      await expect.poll(() => card.locator('.badge').textContent()).toMatch(/cancelled|completed/)
    }
    expect(await card.locator('[data-actions]').isVisible()).toBe(false)
    const read = (await gateway.app.campaigns.get(workspace.workspaceId, id))!
    expect(read.counts.total).toBe(42)
    const actions = (await gateway.app.auditLog.page(workspace.workspaceId, { limit: 20 })).map(entry => `${entry.actorKind} ${entry.action}`)
    expect(actions).toEqual(expect.arrayContaining(['dashboard campaign.created', 'dashboard campaign.paused', 'dashboard campaign.resumed']))
    // the upload went with the confirmation: it cannot be confirmed twice
    expect((await page.request.get(uploadUrl)).status()).toBe(404)
    expect(violations).toEqual([])
  })
})
