import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { GraphError } from './graph-error.js'
import type { ActiveFaults, FaultStore, FaultTarget } from './faults.js'
import type { Faults } from './types.js'

const RANDOM_FAILURES = [131000, 2]

/** Delays, hangs, resets or fails the request as configured; true when the reply was taken over. */
export async function applyFaults (store: FaultStore, request: FastifyRequest, reply: FastifyReply, target: FaultTarget): Promise<boolean> {
  const latency = store.latencyFor(target)
  if (latency !== undefined) await sleep(pickLatency(latency))
  const { outcome, retryAfter } = store.outcomeFor(target)
  if (!outcome) return false
  if (outcome.hang) {
    reply.hijack()
    return true
  }
  if (outcome.reset) {
    reply.hijack()
    request.raw.socket.resetAndDestroy()
    return true
  }
  const error = injectedError(outcome)
  if (!error) return false
  if (retryAfter !== undefined) error.headers['retry-after'] = String(retryAfter)
  throw error
}

function pickLatency (latency: NonNullable<Faults['latencyMs']>): number {
  if (typeof latency === 'number') return latency
  return latency.min + Math.random() * (latency.max - latency.min)
}

function injectedError (faults: ActiveFaults): GraphError | undefined {
  if (faults.permanent) return fromSpec(faults.permanent)
  if (faults.transient && faults.remaining > 0) {
    faults.remaining -= 1
    return fromSpec(faults.transient)
  }
  if (faults.errorRate !== undefined && Math.random() < faults.errorRate) {
    return new GraphError(RANDOM_FAILURES[Math.floor(Math.random() * RANDOM_FAILURES.length)])
  }
  return undefined
}

function fromSpec (spec: { code: number, httpStatus?: number, details?: string }): GraphError {
  return new GraphError(spec.code, { httpStatus: spec.httpStatus, details: spec.details })
}
