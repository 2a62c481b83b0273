import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUser } from '../../src/dashboard/accounts.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { pngImage, sampleFile } from '../../src/sandbox/sample-media.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { useMediaDir } from '../media/helpers.js'
import { chromiumAvailable, launchBrowser, type TestBrowser } from './browser.js'

const SCREENSHOTS = fileURLToPath(new URL('../screenshots/', import.meta.url))
const NUMBER = defaultAccount().phoneNumbers[0].id

/** The inbound page in Chromium: a customer's image drawn inline from the mirror under the strict CSP, other files offered for download. */
describe.skipIf(!chromiumAvailable)('dashboard: inbound media in a real browser', () => {
  const ctx = useGateway({ env: { MEDIA_DIR: useMediaDir() } })
  let browser: TestBrowser
  let page: Page
  const violations: string[] = []

  beforeAll(async () => {
    const { user, password } = await createUser(ctx.gateway.app, { workspaceId: ctx.workspace.workspaceId, email: 'media@acme.test' })
    const image = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654321', media: { bytes: pngImage(64, 40, 11), mimeType: 'image/png', caption: 'Broken lid' } })
    const document = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654321', type: 'document', media: { ...sampleFile('document'), filename: 'receipt.pdf' } })
    for (const mediaId of [image.mediaId!, document.mediaId!]) {
      await waitFor(async () => (await ctx.gateway.app.media.find(ctx.workspace.workspaceId, mediaId))?.storedAt, { what: 'the mirror', timeoutMs: 15_000 })
    }
    await mkdir(SCREENSHOTS, { recursive: true })
    browser = await launchBrowser(ctx.gateway.url)
    page = browser.context.pages()[0] ?? await browser.context.newPage()
    page.on('console', message => { if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text()) })
    await page.goto(`${ctx.gateway.url}/dashboard/messages`)
    await page.getByLabel('Email').fill(user.email)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL('**/dashboard/messages')
  }, 90_000)

  afterAll(async () => { await browser?.close() })

  it('shows the image inline (its stored bytes, decoded by the browser) and the document as a download', async () => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Inbound', exact: true }).click()
    await page.waitForURL('**/dashboard/inbound')
    const image = page.getByRole('img', { name: 'Broken lid' })
    // decoded by the browser: a blocked or broken image has no natural size
    const size = async () => await image.evaluate(element => { const img = element as unknown as { complete: boolean, naturalWidth: number, naturalHeight: number }; return img.complete ? `${img.naturalWidth}x${img.naturalHeight}` : 'loading' })
    await expect.poll(size).toBe('64x40')
    await page.screenshot({ path: join(SCREENSHOTS, 'media-01-inbound.png'), fullPage: true })
    expect(violations).toEqual([])

    const link = page.getByRole('link', { name: /Download receipt\.pdf/ })
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()])
    expect(download.suggestedFilename()).toBe('receipt.pdf')
  })

  it('serves files only through a session, and only the workspace\'s own', async () => {
    const src = await page.getByRole('img', { name: 'Broken lid' }).getAttribute('src')
    const anonymous = await fetch(`${ctx.gateway.url}${src}`, { redirect: 'manual' })
    expect(anonymous.status).toBe(303)
    const withKey = await fetch(`${ctx.gateway.url}${src}`, { redirect: 'manual', headers: { authorization: ctx.workspace.authorization } })
    expect(withKey.status).toBe(303)
    const missing = await page.request.get(`${ctx.gateway.url}/dashboard/inbound/media/123456`)
    expect(missing.status()).toBe(404)
  })
})
