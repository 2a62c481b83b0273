import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUser } from '../../src/dashboard/accounts.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { startGateway, type TestGateway } from '../helpers/gateway.js'
import { waitFor } from '../helpers/wait.js'
import { CHROMIUM, chromiumAvailable, launchBrowser, RECORD_STATUSES, type TestBrowser } from './browser.js'

const SCREENSHOTS = fileURLToPath(new URL('../screenshots/', import.meta.url))
if (!chromiumAvailable) console.log(`[e2e] ${CHROMIUM} is missing (apt-get install -y chromium): the dashboard's browser tests are skipped`)

/**
 * The dashboard as a person uses it, in Debian's Chromium against a listening gateway whose
 * upstream is the emulator (with its own status delays): each step leaves a screenshot behind.
 */
describe.skipIf(!chromiumAvailable)('dashboard in a real browser', () => {
  const account = defaultAccount()
  let gateway: TestGateway
  let browser: TestBrowser
  let page: Page
  let workspaceId: string
  let login: { email: string, password: string }
  let secret: string

  const shot = async (name: string) => { await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true }) }
  const open = async (path: string) => { await page.goto(`${gateway.url}${path}`) }
  const api = async (authorization: string, body: object) => await fetch(`${gateway.url}/api/messages.php`, {
    method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body)
  })
  const nav = (name: string) => page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true })
  const rowStatus = (id: string) => page.locator(`tr[data-id="${id}"] [data-field="status"]`)

  beforeAll(async () => {
    // statusDelaysMs undefined: the emulator's own delays, so statuses arrive after the send answers.
    gateway = await startGateway({ emulator: { statusDelaysMs: undefined } })
    const workspace = await gateway.app.workspaces.create('Acme Store', 'growth')
    workspaceId = workspace.id
    const created = await createUser(gateway.app, { workspaceId, email: 'ops@acme.test' })
    login = { email: created.user.email, password: created.password }
    await mkdir(SCREENSHOTS, { recursive: true })
    browser = await launchBrowser(gateway.url)
    page = browser.context.pages()[0] ?? await browser.context.newPage()
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await gateway?.close()
  })

  it('sends a visitor to sign-in, refuses a wrong password and signs in', async () => {
    await open('/dashboard/messages')
    expect(new URL(page.url()).pathname).toBe('/dashboard/login')
    await shot('01-sign-in')
    await page.getByLabel('Email').fill(login.email)
    await page.getByLabel('Password').fill('not the password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Email or password is incorrect')
    await page.getByLabel('Password').fill(login.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL('**/dashboard/messages')
    await open('/dashboard')
    await expect.poll(() => page.locator('main').textContent()).toContain('No number is connected')
    await shot('02-overview-not-connected')
  })

  it('connects a number against the emulator, showing the upstream\'s refusal of a bad token plainly', async () => {
    await page.getByRole('link', { name: 'Connect a number' }).click()
    await page.getByLabel('WhatsApp Business Account ID').fill(account.wabaId)
    await page.getByLabel('Access token').fill('not-a-valid-token')
    await page.getByRole('button', { name: 'Connect' }).click()
    const refusal = await page.getByRole('alert').textContent()
    expect(refusal).toContain('WhatsApp refused the connection')
    expect(refusal).toMatch(/code 190/)
    await shot('03-connect-refused')

    await page.getByLabel('Access token').fill(account.accessToken)
    await page.getByRole('button', { name: 'Connect' }).click()
    await page.waitForURL('**/dashboard/connection?done=connected')
    await expect.poll(() => page.locator('main').textContent()).toContain(account.phoneNumbers[0].displayPhoneNumber)
    await shot('04-connection')

    await nav('Overview').click()
    const overview = await page.locator('main').textContent()
    expect(overview).toContain('connected')
    expect(overview).toContain('Standard · 80 msg/s')
    expect(overview).toContain('2K conversations / 24 h')
    await expect.poll(() => page.locator('.badge[data-status="GREEN"]').count()).toBe(2)
    await shot('05-overview')
  })

  it('sends a text and a template from the compose page', async () => {
    await nav('Send a message').click()
    await page.getByLabel('To', { exact: true }).fill('+15551234567')
    await page.getByLabel(/^Message/).fill('Hello from the dashboard')
    await page.getByRole('button', { name: 'Send message' }).click()
    expect(await page.getByRole('status').filter({ hasText: 'Message sent' }).textContent()).toMatch(/wamid\./)
    await shot('06-compose-sent')

    await page.getByLabel('Template', { exact: true }).check()
    await expect.poll(() => page.getByLabel(/^Message/).isVisible()).toBe(false)
    await page.getByLabel(/^Template \(template\)/).selectOption('order_confirmation:en_US')
    await page.getByLabel(/^Variables/).fill('A-1042')
    await shot('07-compose-template')
    await page.getByRole('button', { name: 'Send message' }).click()
    expect(await page.getByRole('status').filter({ hasText: 'Message sent' }).textContent()).toMatch(/wamid\./)
  })

  it('creates a key whose secret is shown once and copied from the page', async () => {
    await nav('API keys').click()
    await page.getByLabel('Name').fill('e2e-server')
    await page.getByRole('button', { name: 'Create key' }).click()
    secret = await page.locator('#new-secret').inputValue()
    expect(secret).toMatch(/^obk_live_/)
    await page.getByRole('button', { name: 'Copy' }).click()
    await expect.poll(() => page.locator('[data-copy-status]').textContent()).toBe('Copied to the clipboard.')
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret)
    await shot('08-key-created')
    await open('/dashboard/keys')
    expect(await page.content()).not.toContain(secret)
  })

  it('follows the dashboard\'s messages and one sent with the copied key to read, without a reload', async () => {
    await open('/dashboard/messages')
    await page.evaluate(RECORD_STATUSES)
    // Later statuses for this recipient than the emulator's defaults, so the page shows each change in place.
    gateway.emulator.setStatusOptions({ recipient: '15557654321' }, { delaysMs: { sent: 0, delivered: 2500, read: 5000 } })
    const response = await api(`Bearer ${secret}`, { to: '15557654321', body: 'Hello from the API' })
    expect(response.status).toBe(200)
    const { wamid } = await response.json() as { wamid: string }
    const messages = await gateway.app.messages.list(workspaceId, { limit: 10 })
    expect(messages).toHaveLength(3)
    for (const message of messages) {
      await expect.poll(() => rowStatus(message.id).textContent(), { timeout: 15_000 }).toBe('read')
    }
    const fromApi = messages.find(message => message.wamid === wamid)!
    const seen = await page.evaluate('window.seenStatuses') as Record<string, string[]>
    expect(seen[fromApi.id][0]).toBe('sent')
    expect(seen[fromApi.id].at(-1)).toBe('read')
    expect(await page.locator(`tr[data-id="${fromApi.id}"] [data-field="source"]`).textContent()).toBe('API key “e2e-server”')
    await shot('09-messages')

    await page.getByLabel('Recipient or wamid').fill(wamid)
    await page.getByRole('button', { name: 'Filter' }).click()
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1)
    await page.locator(`tr[data-id="${fromApi.id}"]`).getByRole('link', { name: 'Details' }).click()
    // the history as the API tells it (our own steps beside the upstream's), ending in read
    await expect.poll(async () => (await page.locator('[data-history] [data-field="status"]').allTextContents()).slice(-2)).toEqual(['delivered', 'read'])
    expect(await page.locator('[data-history] [data-field="status"]').allTextContents()).toContain('sent')
    expect(await page.locator('.facts [data-field="pricing"]').textContent()).toContain('service')
    await shot('10-message-detail')
  })

  it('shows inbound messages and syncs templates', async () => {
    await gateway.emulator.injectInbound({ phoneNumberId: account.phoneNumbers[0].id, from: '15557654321', type: 'text', payload: { body: 'Is my order on its way?' } })
    await waitFor(async () => (await gateway.app.inbound.list(workspaceId)).length === 1, { what: 'the inbound message' })
    await nav('Inbound').click()
    expect(await page.locator('main').textContent()).toContain('Is my order on its way?')
    await shot('11-inbound')

    await nav('Templates').click()
    await page.getByRole('button', { name: 'Sync now' }).click()
    await page.waitForURL('**/dashboard/templates?done=synced')
    const templates = await page.locator('main').textContent()
    expect(templates).toContain('promo_rejected')
    expect(templates).toContain('REJECTED')
    await shot('12-templates')
  })

  it('revokes the key after confirmation, and the next API call is refused', async () => {
    await nav('API keys').click()
    await page.getByText('Revoke…').click()
    await page.getByRole('button', { name: 'Revoke key' }).click()
    await page.waitForURL('**/dashboard/keys?done=revoked')
    await expect.poll(() => page.locator('.badge[data-status="revoked"]').count()).toBe(1)
    await shot('13-key-revoked')
    const refused = await api(`Bearer ${secret}`, { to: '15557654321', body: 'after revocation' })
    expect(refused.status).toBe(401)
    expect(await refused.json()).toMatchObject({ ok: false, code: 'unauthorized' })
  })

  it('fits a phone screen, then signs out', async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    await open('/dashboard')
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')
    expect(overflow).toBeLessThanOrEqual(0)
    await shot('14-overview-phone')
    await page.setViewportSize({ width: 1280, height: 860 })
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL('**/dashboard/login?signed_out=1')
    await shot('15-signed-out')
    await open('/dashboard/keys')
    expect(new URL(page.url()).pathname).toBe('/dashboard/login')
  })
})
