import type { Server } from 'node:http'
import type { Socket } from 'node:net'

/** Requests of a connection still being answered (pipelined ones count each). */
interface ConnectionState {
  inFlight: number
}

/**
 * At most `maxConnections` connections on `server` at once, without letting idle clients lock the others out: a new
 * connection beyond the budget closes the connection that has been idle the longest (no request in flight), and is
 * itself refused only when every connection is answering a request. A client that opened connections and sits on
 * them (or polls now and then) cannot starve a scraper; Node's own `server.maxConnections` refuses the newcomer
 * instead, whoever holds the rest.
 */
export function enforceConnectionBudget(server: Server, maxConnections: number): void {
  // Insertion order is the order of last activity: a connection moves to the end when a request starts or ends.
  const connections = new Map<Socket, ConnectionState>()

  function touch(socket: Socket, state: ConnectionState) {
    connections.delete(socket)
    connections.set(socket, state)
  }

  server.on('connection', function admitConnection(socket: Socket) {
    if (connections.size >= maxConnections) {
      let idlest: Socket | undefined
      for (const [candidate, state] of connections) {
        if (state.inFlight === 0) {
          idlest = candidate
          break
        }
      }
      if (!idlest) return void socket.destroy()
      connections.delete(idlest)
      idlest.destroy()
    }
    connections.set(socket, { inFlight: 0 })
    socket.once('close', () => connections.delete(socket))
  })

  server.on('request', function markBusy(request, response) {
    const socket = request.socket
    const state = connections.get(socket)
    if (!state) return
    state.inFlight += 1
    touch(socket, state)
    response.once('close', function markIdle() {
      state.inFlight -= 1
      if (connections.has(socket)) touch(socket, state)
    })
  })
}
