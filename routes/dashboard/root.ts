import type { FastifyPluginAsync } from 'fastify'
import { assetUrl } from '../../src/dashboard/assets.js'

/**
 * The site's root leads to the dashboard (which sends a visitor without a session on to sign-in),
 * and /favicon.ico, which browsers ask for on their own, to the dashboard's icon: neither is an API
 * answer, so neither is a JSON 404.
 */
const root: FastifyPluginAsync = async function (app) {
  app.get('/', async function home (_request, reply) {
    return reply.redirect('/dashboard', 302)
  })
  app.get('/favicon.ico', async function favicon (_request, reply) {
    return reply.redirect(assetUrl('favicon.svg'), 301)
  })
}

export default root
