import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUser } from '../../src/dashboard/accounts.js'
import { addEndpoint } from '../../src/events/endpoints.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { pngImage } from '../../src/sandbox/sample-media.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { useMediaDir } from '../media/helpers.js'
import { chromiumAvailable, launchBrowser, signIn, type TestBrowser } from './browser.js'
import { getRoutes, matches } from './dashboard-routes.js'

const RLO = '\u202E'
const NUMBER = defaultAccount().phoneNumbers[0].id
// one hostile value per kind of field a person outside (or a careless one inside) fills in
const PLANTED = {
  inbound: `inbound${RLO}text`,
  caption: `caption${RLO}text`,
  profile: `profile${RLO}name`,
  campaign: `campaign${RLO}name`,
  csvVariable: `csv${RLO}cell`,
  csvReference: `ref${RLO}cell`,
  key: `key${RLO}name`,
  workspace: `workspace${RLO}name`
}

interface Leak { where: string, text: string }

// Runs in the page: every bidi control in the document must sit inside an isolating element (<bdi>,
// an element with dir, a form control), never in an attribute a person reads, nor in the title.
const LEAKS = `(() => {
  const CONTROL = /[\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069]/
  const isolating = element => element.localName === 'bdi' || element.localName === 'textarea' || element.hasAttribute('dir')
  const leaks = []
  const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_TEXT)
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!CONTROL.test(node.data)) continue
    let element = node.parentElement
    while (element && !isolating(element)) element = element.parentElement
    if (!element) leaks.push({ where: node.parentElement.localName, text: node.data.slice(0, 80) })
  }
  for (const element of document.querySelectorAll('*')) {
    for (const attribute of element.attributes) {
      // what a form sends back is kept as typed: an input's value draws in a box of its own
      if (attribute.name === 'value' && (element.localName === 'input' || element.localName === 'option')) continue
      if (CONTROL.test(attribute.value)) leaks.push({ where: element.localName + '[' + attribute.name + ']', text: attribute.value.slice(0, 80) })
    }
  }
  return leaks
})()`

// Runs in the page: the characters of an element, in reading order, each left of the next on its line.
const OUT_OF_ORDER = `(element => {
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT)
  const boxes = []
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let index = 0; index < node.data.length; index++) {
      if (/\\s/.test(node.data[index])) continue
      const range = document.createRange()
      range.setStart(node, index)
      range.setEnd(node, index + 1)
      const box = range.getClientRects()[0]
      if (box && box.width > 0) boxes.push({ character: node.data[index], left: box.left, top: box.top })
    }
  }
  const wrong = []
  for (let i = 1; i < boxes.length; i++) {
    const [before, after] = [boxes[i - 1], boxes[i]]
    if (Math.abs(after.top - before.top) <= 2 && after.left < before.left) wrong.push(before.character + after.character)
  }
  return wrong
})`

/**
 * Right-to-left overrides in every kind of user-supplied value (an inbound text, a caption and a
 * profile name by signed webhook, a campaign's name and its CSV's cells, a key's name, the
 * workspace's name) stay inside their own isolate on every dashboard page, found from the routes.
 */
describe.skipIf(!chromiumAvailable)('bidi controls in user values stay contained, on every dashboard page', () => {
  const receiver: Server = createServer((request, response) => { request.resume(); response.end('ok') })
  const ctx = useGateway({ env: { MEDIA_DIR: useMediaDir(), WEBHOOKS_ALLOW_PRIVATE: 'true' } })
  const samples: Record<string, string[]> = {}
  let browser: TestBrowser
  let page: Page
  const url = (path: string) => `${ctx.gateway.url}${path}`

  beforeAll(async () => {
    const { app, emulator } = ctx.gateway
    const { workspaceId } = ctx.workspace
    await new Promise<void>(resolve => receiver.listen(0, '127.0.0.1', resolve))
    await addEndpoint(app, { workspaceId, url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/events` })
    await app.database.db.execute(`update workspaces set name = '${PLANTED.workspace}' where id = '${workspaceId}'`)

    await emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654321', type: 'text', payload: { body: PLANTED.inbound }, profileName: PLANTED.profile })
    const image = await emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654321', profileName: PLANTED.profile, media: { bytes: pngImage(64, 40, 11), mimeType: 'image/png', caption: PLANTED.caption } })
    await waitFor(async () => (await app.media.find(workspaceId, image.mediaId!))?.storedAt, { what: 'the mirror', timeoutMs: 15_000 })
    const delivery = await waitFor(async () => (await app.webhooks.deliveries(workspaceId, { limit: 50 })).find(candidate => candidate.type === 'message.received'), { what: 'a message.received delivery' })
    samples['/dashboard/webhooks/deliveries/:id'] = [`/dashboard/webhooks/deliveries/${delivery.id}`]

    const created = await createUser(app, { workspaceId, email: 'bidi@acme.test' })
    browser = await launchBrowser(ctx.gateway.url)
    page = browser.context.pages()[0] ?? await browser.context.newPage()
    await signIn(page, ctx.gateway.url, { email: created.user.email, password: created.password })

    await page.goto(url('/dashboard/keys'))
    await page.getByLabel('Name').fill(PLANTED.key)
    await page.getByRole('button', { name: 'Create key' }).click()
    await page.waitForURL('**/dashboard/keys')

    await page.goto(url('/dashboard/campaigns/new'))
    await page.getByLabel('Name').fill(PLANTED.campaign)
    await page.getByLabel('Template').selectOption('order_confirmation')
    await page.getByLabel('Language').fill('en_US')
    const csv = `to,1,client_reference\n+17778800001,${PLANTED.csvVariable},${PLANTED.csvReference}\nnot-a-number,${PLANTED.csvVariable},\n`
    await page.getByLabel('CSV file').setInputFiles({ name: 'bidi.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
    await page.getByRole('button', { name: 'Preview' }).click()
    await page.waitForURL('**/dashboard/campaigns/uploads/cup_*')
    samples['/dashboard/campaigns/uploads/:id'] = [new URL(page.url()).pathname]
    const upload = await page.content()
    expect(upload.replace(/\[U\+202E\]/g, RLO)).toContain(PLANTED.csvVariable)
    await page.getByRole('button', { name: 'Confirm and create the campaign' }).click()
    await page.waitForURL('**/dashboard/campaigns/cmp_*')
    samples['/dashboard/campaigns/:id'] = [new URL(page.url()).pathname]
    const sent = await waitFor(async () => (await app.messages.list(workspaceId, { limit: 10 }))[0], { what: 'the campaign\'s message' })
    samples['/dashboard/messages/:id'] = [`/dashboard/messages/${sent.id}`]
    // the thread of the person whose text and profile name carry the controls
    samples['/dashboard/conversations/:number/:person'] = [`/dashboard/conversations/${NUMBER}/15557654321`]
    samples['/dashboard/templates/:id/edit'] = [`/dashboard/templates/${defaultAccount().templates[1].id}/edit`]
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await new Promise(resolve => receiver.close(resolve))
  })

  it('keeps every control inside an isolate, and shows each planted value somewhere', async () => {
    const notPages = ['/dashboard/assets/:name', '/dashboard/inbound/media/:id', '/dashboard/messages/:id/status', '/dashboard/campaigns/:id/status', '/dashboard/login']
    const routes = getRoutes(ctx.gateway.app).filter(route => route.startsWith('/dashboard') && !notPages.includes(route))
    const shown = new Set<string>()
    const leaks: string[] = []
    let pages = 0
    for (const route of routes) {
      const paths = route.includes(':') ? samples[route] : [route]
      expect(paths, `no sample for the page ${route}: add one to this test's samples`).toBeDefined()
      for (const path of paths.filter(path => matches(route, path))) {
        const response = await page.goto(url(path))
        if (!(response?.headers()['content-type'] ?? '').startsWith('text/html')) continue
        pages++
        for (const leak of await page.evaluate(LEAKS) as Leak[]) leaks.push(`${path}: ${leak.where}: ${JSON.stringify(leak.text)}`)
        const text = (await page.content()).replace(/\[U\+202E\]/g, RLO)
        for (const [kind, value] of Object.entries(PLANTED)) if (text.includes(value)) shown.add(kind)
      }
    }
    expect(pages).toBeGreaterThanOrEqual(12)
    expect(leaks).toEqual([])
    // the profile name is kept only in the webhook's raw delivery; every other kind is on a page
    expect([...shown].sort()).toEqual(Object.keys(PLANTED).filter(kind => kind !== 'profile').sort())
  })

  it('the key-revoke confirmation reads in order, the key\'s name with its control shown', async () => {
    await page.setViewportSize({ width: 1280, height: 860 })
    await page.goto(url('/dashboard/keys'))
    const key = (await ctx.gateway.app.keys.list(ctx.workspace.workspaceId)).find(candidate => candidate.name === PLANTED.key)!
    const row = page.locator(`tr[data-key-id="${key.id}"]`)
    await row.getByText('Revoke…').click()
    const question = `tr[data-key-id="${key.id}"] .confirm-box p`
    expect(await page.evaluate(`(${OUT_OF_ORDER})(document.querySelector('${question}'))`), 'pairs of letters drawn right to left').toEqual([])
    expect(await page.locator(question).innerText()).toBe('Revoke “key[U+202E]name”? Requests with this key get 401 from the next one on. This cannot be undone.')
  })
})
