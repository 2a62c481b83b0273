import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'

/** Debian's Chromium: playwright-core drives it, nothing is downloaded. CI installs it (apt-get install -y chromium). */
export const CHROMIUM = '/usr/bin/chromium'
export const chromiumAvailable = existsSync(CHROMIUM)

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

export interface TestBrowser { context: BrowserContext, close(): Promise<void> }

/** Headless Chromium on a fresh profile of its own, allowed to use the clipboard of `origin`. */
export async function launchBrowser (origin: string): Promise<TestBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'outbound-chromium-'))
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS, headless: true, viewport: { width: 1280, height: 860 } })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin })
  return {
    context,
    async close () {
      await context.close()
      await rm(profile, { recursive: true, force: true })
    }
  }
}

/** Signs in on the dashboard's login page as `login`, and waits for the overview. */
export async function signIn (page: Page, origin: string, login: { email: string, password: string }): Promise<void> {
  await page.goto(`${origin}/dashboard/login`)
  await page.getByLabel('Email').fill(login.email)
  await page.getByLabel('Password').fill(login.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL('**/dashboard')
}

/** Collects the page's Content Security Policy violations (the console's reports) into `into`. */
export function collectCspViolations (page: Page, into: string[]): void {
  page.on('console', message => { if (/Content Security Policy/i.test(message.text())) into.push(message.text()) })
}

// Runs in the page: every status each message row shows, in order, as the live script changes it (a reload would lose it).
export const RECORD_STATUSES = `
  window.seenStatuses = {}
  new MutationObserver(() => {
    for (const row of document.querySelectorAll('tr[data-id]')) {
      const seen = window.seenStatuses[row.dataset.id] ??= []
      const status = row.querySelector('[data-field="status"]').textContent
      if (seen.at(-1) !== status) seen.push(status)
    }
  }).observe(document.querySelector('tbody'), { subtree: true, childList: true, characterData: true })`
