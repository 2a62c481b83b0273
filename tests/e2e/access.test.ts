import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUser } from '../../src/dashboard/accounts.js'
import { connectedWorkspace, startGateway, type ConnectedWorkspace, type TestGateway } from '../helpers/gateway.js'
import { chromiumAvailable, launchBrowser, signIn, type TestBrowser } from './browser.js'

const SCREENSHOTS = fileURLToPath(new URL('../screenshots/', import.meta.url))

/** The key form's scopes and numbers, the key list, and Settings → Audit log, as a person uses them in Chromium. */
describe.skipIf(!chromiumAvailable)('scoped keys and the audit log in a real browser', () => {
  let gateway: TestGateway
  let workspace: ConnectedWorkspace
  let browser: TestBrowser
  let page: Page
  let login: { email: string, password: string }
  let secret: string

  const shot = async (name: string) => { await page.screenshot({ path: join(SCREENSHOTS, `access-${name}.png`), fullPage: true }) }
  const nav = (name: string) => page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true })
  const api = async (method: 'GET' | 'POST', body?: object) => await fetch(`${gateway.url}/api/messages.php`, {
    method, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, ...(body && { body: JSON.stringify(body) })
  })
  const numbers = () => workspace.connection.phone_numbers

  beforeAll(async () => {
    gateway = await startGateway()
    workspace = await connectedWorkspace(gateway, 'growth')
    const created = await createUser(gateway.app, { workspaceId: workspace.workspaceId, email: 'security@acme.test' })
    login = { email: created.user.email, password: created.password }
    await mkdir(SCREENSHOTS, { recursive: true })
    browser = await launchBrowser(gateway.url)
    page = browser.context.pages()[0] ?? await browser.context.newPage()
    await signIn(page, gateway.url, login)
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await gateway?.close()
  })

  it('asks for at least one scope', async () => {
    await nav('API keys').click()
    await page.getByLabel('Name').fill('nothing')
    for (const box of await page.getByRole('checkbox', { name: /:/ }).all()) await box.uncheck()
    await page.getByRole('button', { name: 'Create key' }).click()
    await expect.poll(() => page.locator('main').textContent()).toContain('Choose at least one scope.')
    expect(await page.locator('#new-secret').count()).toBe(0)
  })

  it('creates a key that may only read, from one number, and lists its scopes and numbers', async () => {
    const [, second] = numbers()
    await page.getByLabel('Name').fill('status-reader')
    for (const box of await page.getByRole('checkbox', { name: /:/ }).all()) await box.uncheck()
    await page.getByRole('checkbox', { name: 'messages:read' }).check()
    await page.getByRole('checkbox', { name: new RegExp(second.phone_number_id) }).check()
    await shot('01-key-form')
    await page.getByRole('button', { name: 'Create key' }).click()
    secret = await page.locator('#new-secret').inputValue()
    expect(secret).toMatch(/^obk_live_/)

    const [key] = (await gateway.app.keys.list(workspace.workspaceId)).filter(candidate => candidate.name === 'status-reader')
    const row = page.locator(`tr[data-key-id="${key.id}"]`)
    expect(await row.locator('[data-field="scopes"]').textContent()).toBe('messages:read ')
    expect(await row.locator('[data-field="numbers"]').textContent()).toBe(`${second.phone_number_id} `)
    expect(await row.locator('[data-field="last-used"]').textContent()).toBe('never')
    expect(await page.locator(`tr[data-key-id="${workspace.apiKeyId}"] [data-field="scopes"]`).textContent()).toBe('all')
    await shot('02-key-created')
  })

  it('the key reads but may not send; the list then shows when it was last used', async () => {
    expect((await api('GET')).status).toBe(200)
    const refused = await api('POST', { to: '15551234567', body: 'not allowed', phone_number_id: numbers()[1].phone_number_id })
    expect(refused.status).toBe(403)
    expect(await refused.json()).toMatchObject({ ok: false, code: 'insufficient_scope' })
    await expect.poll(async () => {
      await page.goto(`${gateway.url}/dashboard/keys`)
      return await page.locator('tr:has(td:text-is("status-reader")) [data-field="last-used"] time').count()
    }, { timeout: 15_000 }).toBe(1)
  })

  it('revokes it, and Settings → Audit log shows the sign-in, the creation and the revocation, newest first', async () => {
    await page.locator('tr:has(td:text-is("status-reader"))').getByText('Revoke…').click()
    await page.getByRole('button', { name: 'Revoke key' }).click()
    await page.waitForURL('**/dashboard/keys?done=revoked')

    await nav('Audit log').click()
    await page.waitForURL('**/dashboard/audit')
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Audit log')
    expect(await page.locator('[data-field="action"]').allTextContents()).toEqual(['key.revoked', 'key.created', 'user.signed_in'])
    const actors = await page.locator('[data-field="actor"]').allTextContents()
    expect(actors).toEqual(Array(3).fill(`Dashboard: ${login.email}`))
    expect(await page.locator('[data-field="target"]').first().textContent()).toContain('“status-reader”')
    await shot('03-audit-log')
  })
})
