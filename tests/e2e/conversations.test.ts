import { sql } from 'drizzle-orm'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUser } from '../../src/dashboard/accounts.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { chromiumAvailable, collectCspViolations, launchBrowser, signIn, type TestBrowser } from './browser.js'

const SCREENSHOTS = fileURLToPath(new URL('../screenshots/', import.meta.url))
const NUMBER = defaultAccount().phoneNumbers[0].id
const FROM = '15550200001'
const WIDTHS = [390, 1280] as const

/** The conversation view (CONTRACT.md 19) in Chromium at a phone's and a desktop's width: the thread, the window's time left, read marks, a reply. */
describe.skipIf(!chromiumAvailable)('dashboard: a conversation in a real browser', () => {
  const ctx = useGateway()
  let browser: TestBrowser
  let page: Page
  const violations: string[] = []

  beforeAll(async () => {
    const login = await createUser(ctx.gateway.app, { workspaceId: ctx.workspace.workspaceId, email: 'conversations@acme.test' })
    const { wamid } = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: FROM, payload: { body: 'Is my order on its way?' } })
    await waitFor(async () => await ctx.gateway.app.inbound.find(ctx.workspace.workspaceId, { wamid }), { what: 'the inbound message stored' })
    await mkdir(SCREENSHOTS, { recursive: true })
    browser = await launchBrowser(ctx.gateway.url)
    page = browser.context.pages()[0] ?? await browser.context.newPage()
    collectCspViolations(page, violations)
    await signIn(page, ctx.gateway.url, { email: login.user.email, password: login.password })
  }, 90_000)

  afterAll(async () => { await browser?.close() })

  for (const width of WIDTHS) {
    it(`at ${width} px: lists the conversation, opens it, marks it read and sends a reply inside the window, with no sideways scrolling`, async () => {
      await page.setViewportSize({ width, height: 844 })
      await page.goto(`${ctx.gateway.url}/dashboard/conversations`)
      await page.locator(`a[href="/dashboard/conversations/${NUMBER}/${FROM}"]`).click()
      await page.waitForURL(`**/dashboard/conversations/${NUMBER}/${FROM}`)
      await expect.poll(async () => await page.locator('[data-window="open"]').textContent()).toMatch(/Window open: 2[23] h \d+ min left/)
      expect(await page.locator('.bubble.inbound').first().textContent()).toContain('Is my order on its way?')
      // the person's actions: mark read here; erasure (CONTRACT.md 17) joins them
      const markRead = page.locator('[data-conversation-actions]').getByRole('button', { name: /Mark read/ })
      if (await markRead.isEnabled()) {
        await markRead.click()
        await page.waitForURL(`**/dashboard/conversations/${NUMBER}/${FROM}`)
      }
      await expect.poll(async () => await page.locator('.bubble.inbound .read-mark').count()).toBeGreaterThan(0)
      expect(ctx.gateway.emulator.readReceipts.map(receipt => receipt.messageId).length).toBeGreaterThan(0)

      const reply = `On its way (${width})`
      await page.getByLabel('Reply').fill(reply)
      await page.getByRole('button', { name: 'Send', exact: true }).click()
      await page.waitForURL(`**/dashboard/conversations/${NUMBER}/${FROM}`)
      await expect.poll(async () => await page.locator('.bubble.outbound').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining(reply)]))
      expect(await page.evaluate('document.scrollingElement.scrollWidth <= document.scrollingElement.clientWidth')).toBe(true)
      await page.screenshot({ path: join(SCREENSHOTS, `conversation-${width}.png`), fullPage: true })
      expect(violations).toEqual([])
    })
  }

  it('sets the workspace\'s read-receipt policy from the conversations page, audited', async () => {
    await page.goto(`${ctx.gateway.url}/dashboard/conversations`)
    await page.getByLabel('Mark messages read').selectOption('on_reply')
    await page.locator('[data-read-receipts]').getByRole('button', { name: 'Save' }).click()
    await page.waitForURL('**/dashboard/conversations')
    expect((await ctx.gateway.app.workspaces.get(ctx.workspace.workspaceId))?.readReceipts).toBe('on_reply')
    expect(await page.getByLabel('Mark messages read').inputValue()).toBe('on_reply')
    const entries = await ctx.gateway.app.auditLog.page(ctx.workspace.workspaceId, { limit: 5 })
    expect(entries.map(entry => entry.action)).toContain('workspace.settings_changed')
    await ctx.gateway.app.workspaces.setReadReceipts(ctx.workspace.workspaceId, 'manual')
  })

  it('offers a template, not free-form text, once the service window has closed', async () => {
    await ctx.gateway.app.database.db.execute(sql`update conversations set last_inbound_at = now() - interval '25 hours' where person = ${FROM}`)
    await page.goto(`${ctx.gateway.url}/dashboard/conversations/${NUMBER}/${FROM}`)
    expect(await page.locator('[data-window="closed"]').textContent()).toContain('Window closed')
    expect(await page.getByLabel(/Template/).count()).toBe(1)
    expect(await page.getByLabel('Reply').count()).toBe(0)
  })

  for (const width of WIDTHS) {
    it(`at ${width} px: Settings → Privacy sets the retention, with no sideways scrolling`, async () => {
      await page.setViewportSize({ width, height: 844 })
      await page.goto(`${ctx.gateway.url}/dashboard/privacy`)
      await page.getByLabel('Keep content for (days)').fill(String(width))
      await page.getByRole('button', { name: 'Save retention' }).click()
      await page.waitForURL('**/dashboard/privacy?done=retention-saved')
      expect(await page.locator('[data-retention-now]').textContent()).toContain(`Content is removed after ${width} days.`)
      expect((await ctx.gateway.app.workspaces.get(ctx.workspace.workspaceId))?.retentionDays).toBe(width)
      expect(await page.evaluate('document.scrollingElement.scrollWidth <= document.scrollingElement.clientWidth')).toBe(true)
      await page.screenshot({ path: join(SCREENSHOTS, `privacy-${width}.png`), fullPage: true })
      expect(violations).toEqual([])
    })
  }

  // last: the conversation goes with the person (CONTRACT.md 17)
  it('erases the person from the conversation, once confirmed, and lists the completed erasure', async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`${ctx.gateway.url}/dashboard/conversations/${NUMBER}/${FROM}`)
    const actions = page.locator('[data-conversation-actions]')
    await actions.getByText('Erase this person…').click()
    await actions.getByRole('button', { name: 'Erase for good' }).click()
    await page.waitForURL('**/dashboard/privacy?done=erasure-requested')
    await waitFor(async () => (await ctx.gateway.app.erasures.list(ctx.workspace.workspaceId, { limit: 1 }))?.[0]?.status === 'completed', { what: 'the erasure completed' })
    await page.reload()
    expect(await page.locator('[data-erasure-id]').first().textContent()).toContain('completed')
    expect(await ctx.gateway.app.conversations.one(ctx.workspace.workspaceId, NUMBER, FROM)).toBeUndefined()
    expect(await page.content()).not.toContain(FROM)
    expect(violations).toEqual([])
  })
})
