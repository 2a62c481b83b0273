import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUser } from '../../src/dashboard/accounts.js'
import { startGateway, type TestGateway } from '../helpers/gateway.js'
import { waitFor } from '../helpers/wait.js'
import { ownWabaWorkspace } from '../templates/helpers.js'
import { chromiumAvailable, collectCspViolations, launchBrowser, signIn, type TestBrowser } from './browser.js'

const WIDTHS = [390, 1280] as const
const HEIGHT = { 1280: 860, 390: 844 } as const

/** Templates → New and Edit (CONTRACT.md 20): the form with its live phone preview, at 390 and 1280 px, in Chromium under the CSP. */
describe.skipIf(!chromiumAvailable)('the template form in a real browser', () => {
  let gateway: TestGateway
  let workspaceId: string
  let browser: TestBrowser
  let page: Page
  const violations: string[] = []
  const preview = (part: string) => page.locator(`[data-template-phone] [data-preview="${part}"]`)

  async function fits (what: string, width: 390 | 1280) {
    const facts = await page.evaluate('({ scrollWidth: document.scrollingElement.scrollWidth, clientWidth: document.scrollingElement.clientWidth })') as { scrollWidth: number, clientWidth: number }
    expect(facts.scrollWidth, `${what} at ${width} px scrolls sideways`).toBeLessThanOrEqual(facts.clientWidth)
    const box = (await page.locator('[data-template-phone]').boundingBox())!
    expect(box.x + box.width, `${what} at ${width} px: the preview on screen`).toBeLessThanOrEqual(width)
  }

  beforeAll(async () => {
    gateway = await startGateway({ emulator: { templateReviewMs: 100 } })
    workspaceId = (await ownWabaWorkspace(gateway)).workspaceId
    const created = await createUser(gateway.app, { workspaceId, email: 'templates@acme.test' })
    browser = await launchBrowser(gateway.url)
    page = browser.context.pages()[0] ?? await browser.context.newPage()
    collectCspViolations(page, violations)
    await signIn(page, gateway.url, { email: created.user.email, password: created.password })
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await gateway?.close()
  })

  for (const width of WIDTHS) {
    it(`at ${width} px: creates a template, the preview following each keystroke; a refusal marks the field`, async () => {
      await page.setViewportSize({ width, height: HEIGHT[width] })
      await page.goto(`${gateway.url}/dashboard/templates`)
      await page.getByRole('link', { name: 'New template' }).click()
      const name = `shipping_notice_${width}`
      await page.getByLabel('Name').fill(name)
      await page.getByLabel('Category').selectOption('UTILITY')
      await page.getByLabel('Header (optional)').fill('Order {{1}} shipped')
      await page.getByLabel('Header example').fill('860198')
      await page.getByLabel('Body', { exact: true }).fill('Hi {{1}}, your order {{2}} is on its way.')
      await page.getByLabel(/Body examples/).fill('Pablo\n860198-230332')
      await page.getByLabel('Footer (optional)').fill('Not you? Ignore this message.')
      await page.getByLabel('Button 1 kind').selectOption('QUICK_REPLY')
      await page.getByLabel('Button 1 text').fill('Thanks')
      await page.getByLabel('Button 2 kind').selectOption('URL')
      await page.getByLabel('Button 2 text').fill('Track order')
      await page.getByLabel('Button 2 URL or phone number').fill('https://example.com/track?id={{1}}')
      await page.getByLabel('Button 2 URL example').fill('860198')
      expect(await preview('header').textContent()).toBe('Order 860198 shipped')
      expect(await preview('body').textContent()).toBe('Hi Pablo, your order 860198-230332 is on its way.')
      expect(await preview('footer').textContent()).toBe('Not you? Ignore this message.')
      expect(await preview('buttons').locator('li').allTextContents()).toEqual(['Thanks', 'Track order'])
      await fits('the new template form', width)

      // a rule broken: the form comes back with the room's message and the field marked
      await page.getByLabel('Footer (optional)').fill('Ref {{1}}')
      await page.getByRole('button', { name: 'Submit for review' }).click()
      await expect.poll(() => page.locator('.alert-error').first().textContent()).toMatch(/invalid_template.*footer has no placeholders/s)
      expect(await page.getByLabel('Footer (optional)').getAttribute('aria-invalid')).toBe('true')
      expect(await preview('body').textContent()).toBe('Hi Pablo, your order 860198-230332 is on its way.')
      await fits('the refused form', width)

      await page.getByLabel('Footer (optional)').fill('Not you? Ignore this message.')
      await page.getByRole('button', { name: 'Submit for review' }).click()
      await page.waitForURL('**/dashboard/templates?done=created')
      const row = page.locator(`tr[data-template="${name}:en_US"]`)
      await expect.poll(() => row.textContent()).toContain('PENDING')
      const stored = await waitFor(async () => (await gateway.app.templates.byName(workspaceId, name)).find(template => template.status === 'APPROVED'), { what: 'approved by the webhook' })
      expect(stored.components).toHaveLength(4)
    })
  }

  it('edits an approved template through its form (prefilled, with its preview), then deletes it', async () => {
    await page.setViewportSize({ width: 390, height: HEIGHT[390] })
    await page.goto(`${gateway.url}/dashboard/templates`)
    const row = page.locator('tr[data-template="shipping_notice_390:en_US"]')
    await row.getByRole('link', { name: 'Edit' }).click()
    expect(await page.getByLabel('Body', { exact: true }).inputValue()).toBe('Hi {{1}}, your order {{2}} is on its way.')
    expect(await preview('body').textContent()).toBe('Hi Pablo, your order 860198-230332 is on its way.')
    expect(await page.getByLabel('Category').isDisabled()).toBe(true)
    await page.getByLabel('Body', { exact: true }).fill('Hello {{1}}, order {{2}} left our warehouse.')
    expect(await preview('body').textContent()).toBe('Hello Pablo, order 860198-230332 left our warehouse.')
    await fits('the edit form', 390)
    await page.getByRole('button', { name: 'Submit the edit' }).click()
    await page.waitForURL('**/dashboard/templates?done=edited')
    const [edited] = await gateway.app.templates.byName(workspaceId, 'shipping_notice_390')
    expect((edited.components as Array<{ text?: string }>)[1].text).toBe('Hello {{1}}, order {{2}} left our warehouse.')

    await page.goto(`${gateway.url}/dashboard/templates`)
    await page.getByRole('button', { name: 'Delete shipping_notice_1280 (en_US)' }).click()
    await page.waitForURL('**/dashboard/templates?done=deleted')
    expect(await page.locator('tr[data-template="shipping_notice_1280:en_US"]').count()).toBe(0)
    const audit = await gateway.app.auditLog.page(workspaceId, { limit: 20 })
    expect(audit.map(entry => entry.action)).toEqual(expect.arrayContaining(['template.created', 'template.updated', 'template.deleted']))
    expect(audit.find(entry => entry.action === 'template.deleted')?.actorKind).toBe('dashboard')
    expect(violations).toEqual([])
  })
})
