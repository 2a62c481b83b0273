import fp from 'fastify-plugin'
import { createDispatcher, type Dispatch } from '../src/dispatch/dispatcher.js'

declare module 'fastify' {
  interface FastifyInstance { dispatch: Dispatch }
}

/** The one way a logged message goes upstream, for the API and the dashboard alike. */
export default fp(async function dispatch (app) {
  app.decorate('dispatch', createDispatcher({ upstream: app.upstream, messages: app.messages, cipher: app.cipher, log: app.log }))
}, { name: 'dispatch', dependencies: ['db', 'upstream'] })
