#!/usr/bin/env node
// `npm start`: builds dist/ first when it is missing or older than the sources (in a process of its
// own, so that initdb's memory for the database template is not kept here), then runs the compiled
// server in this process: one node start, no TypeScript loader.
import { ensureBuilt } from './build.mjs'

ensureBuilt()
// `cluster` (npm run start:cluster): cluster.fork() repeats the argument, so workers pass here too
await import(process.argv[2] === 'cluster' ? '../dist/src/cluster.js' : '../dist/src/server.js')
