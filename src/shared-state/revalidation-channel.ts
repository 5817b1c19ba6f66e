import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { revalidation } from '../../config/content.ts'
import { readLogged, type FleetRevalidationLog, type LoggedRevalidation } from './revalidation-log.ts'
import type { RevalidatedPages, RevalidationMessage } from '../pages/revalidation.ts'

export interface RevalidationChannelOptions {
  /** The fleet's revalidation log (src/shared-state/redis-revalidation-log.ts). */
  fleet: FleetRevalidationLog
  /** The pages revalidations apply to: another instance's as it arrives, this instance's own before it is told. */
  pages: RevalidatedPages
  log: FastifyBaseLogger
  /** How often the newest number is checked (config/content.ts; tests shorten it). */
  versionCheckMs?: number
}

/**
 * Revalidations told to every instance through Redis (REDIS_URL; docs/content.md "Across the fleet"). The instance
 * that takes a call numbers it and keeps it in the revalidation log, regenerates the pages it keeps, then publishes
 * it; every other instance applies it as the message arrives. Each instance remembers the newest number it applied: a
 * message that skips numbers, or the check of the newest number every second, makes it read what it missed from the
 * log (a dropped subscription, a pause), so a missed message leaves a page stale for a second at most; when the log no
 * longer reaches back, every kept page is regenerated. PUBLISH answers how many instances were listening: the number
 * the call's 200 reports. Redis down or failing: the call applies here only, with a warn line, and never fails.
 */
export class RevalidationChannel {
  readonly #fleet: FleetRevalidationLog
  readonly #pages: RevalidatedPages
  readonly #log: FastifyBaseLogger
  readonly #timer: NodeJS.Timeout
  /** This instance's id in the revalidations it logs. */
  readonly #self = randomUUID()
  /** The newest revalidation number applied here; undefined until Redis has said one. */
  #applied: number | undefined
  /** The epoch of the revalidation state that number counts in (docs/content.md "Across the fleet"). */
  #epoch: string | undefined
  /** Instances alive as last read (a check, or a call's wait): what a call reports when it cannot read it again. */
  #alive = 1
  /** Numbers of the revalidations this instance took and is applying itself: catching up skips them. */
  readonly #taking = new Set<number>()
  /** Catching up runs one at a time, in order. */
  #catchingUp: Promise<void> = Promise.resolve()

  constructor(options: RevalidationChannelOptions) {
    this.#fleet = options.fleet
    this.#pages = options.pages
    this.#log = options.log
    // Each time the subscription is made, the newest number is checked: what was told while it was not listening
    // (Redis restarted, the connection lost) is caught up at once, and this instance counts among the alive again.
    this.#fleet.listen(
      (text) => this.#heard(text),
      () => this.#checkNewest(),
    )
    this.#timer = setInterval(() => this.#checkNewest(), options.versionCheckMs ?? revalidation.versionCheckMs)
    this.#timer.unref()
    this.#checkNewest()
  }

  /**
   * Logs a revalidation (numbered), regenerates the pages this instance keeps (their versions, shared through Redis,
   * carry the number: the other instances take them without running the loaders), then publishes it: how many
   * instances have been told, this one included.
   */
  async tell(message: RevalidationMessage): Promise<{ instances: number; alive: number }> {
    const alone = async (warning: string, error?: unknown) => {
      this.#pages.revalidate(message)
      this.#log.warn({ ...(error === undefined ? {} : { err: error }), ...message }, warning)
      return { instances: 1, alive: 1 }
    }
    if (!this.#fleet.up) return alone('revalidation applied to this instance only: redis is not connected')
    let logged: { seq: number; text: string }
    try {
      logged = await this.#fleet.append({ ...message, from: this.#self })
    } catch (error) {
      return alone('revalidation applied to this instance only: redis publish failed', error)
    }
    // Anything numbered before it that this instance missed, then its own, regenerated here before anyone is told.
    this.#taking.add(logged.seq)
    try {
      await this.#catchUp(logged.seq - 1, readLogged(logged.text)?.epoch)
      this.#pages.revalidate(message)
    } finally {
      this.#taking.delete(logged.seq)
    }
    this.#applied = Math.max(this.#applied ?? 0, logged.seq)
    try {
      await this.#acknowledge(logged.seq)
      await this.#fleet.announce(logged.text)
      return await this.#acknowledged(logged.seq)
    } catch (error) {
      // Logged: the other instances catch up at their next check of the newest number.
      this.#log.warn({ err: error, ...message }, 'revalidation not published: other instances catch up from the log')
      return { instances: 1, alive: this.#alive }
    }
  }

  /**
   * Waits (at most ackWaitMs) for every instance alive to have applied `seq`: how many did, of how many. Both are read
   * at every poll, not taken from this instance's last check: that count may be a second old, and right after Redis
   * restarted empty the instances check in again one by one (an instance that checked in first saw itself alone).
   */
  async #acknowledged(seq: number): Promise<{ instances: number; alive: number }> {
    const deadline = performance.now() + revalidation.ackWaitMs
    for (;;) {
      const { instances, alive } = await this.#fleet.acknowledgements(seq)
      this.#alive = Math.max(alive, instances)
      if (instances >= alive || performance.now() >= deadline) return { instances, alive: this.#alive }
      await new Promise((resolve) => setTimeout(resolve, revalidation.ackPollMs))
    }
  }

  #acknowledge(seq: number): Promise<void> {
    return this.#fleet
      .acknowledge(seq, this.#self)
      .catch((error: unknown) => this.#fleet.failed(error, 'revalidation ack'))
  }

  #heard(text: string) {
    const message = readLogged(text)
    if (!message) return this.#log.warn({}, 'revalidation message of another shape: ignored')
    this.#log.debug({ seq: message.seq, paths: message.paths, tags: message.tags }, 'revalidation heard')
    void this.#catchUp(message.seq, message.epoch, message)
  }

  /** At start, then every 1 s, with this instance's heartbeat: a number newer than the last applied means messages
   * were missed; another epoch, that Redis lost the state (docs/content.md "Across the fleet"). */
  #checkNewest() {
    if (!this.#fleet.up) return
    this.#fleet.check(this.#self).then(
      ({ seq, epoch, alive }) => {
        this.#alive = alive
        if (this.#applied !== undefined && seq > this.#applied && epoch === this.#epoch) {
          this.#log.info({ applied: this.#applied, newest: seq }, 'revalidations missed: catching up from the log')
        }
        return this.#catchUp(seq, epoch)
      },
      (error: unknown) => this.#fleet.failed(error, 'revalidation check'),
    )
  }

  /**
   * Applies every revalidation numbered up to `seq` not applied yet: `known` without reading the log when it is next.
   * A number of another epoch than the one applied (or one that went back) means Redis lost what it kept: nothing
   * this instance keeps can be proven current, so every kept page is checked again.
   */
  #catchUp(seq: number, epoch: string | undefined, known?: LoggedRevalidation): Promise<void> {
    this.#catchingUp = this.#catchingUp.then(async () => {
      if (epoch !== undefined && this.#epoch !== undefined && (epoch !== this.#epoch || seq < (this.#applied ?? 0))) {
        const says = 'revalidation state in redis is new (restarted or emptied): regenerating every kept page'
        this.#log.warn({ applied: this.#applied, newest: seq }, says)
        this.#applied = undefined
      }
      if (epoch !== undefined) this.#epoch = epoch
      const applied = this.#applied
      if (applied === undefined) {
        // The first number this instance learns (at start, once Redis is reachable, or in a new epoch): a page it kept
        // before may have been named meanwhile. Each is checked against the fleet's version (no loader runs when it
        // is current).
        this.#pages.revalidate('everything')
        this.#applied = seq
        if (seq > 0) await this.#acknowledge(seq)
        return
      }
      if (seq <= applied) return
      if (known && seq === applied + 1) {
        if (!this.#taking.has(seq)) this.#pages.revalidate(known)
        this.#applied = seq
        await this.#acknowledge(seq)
        return
      }
      let missed: LoggedRevalidation[] | 'gone'
      try {
        missed = await this.#fleet.since(applied, seq)
      } catch (error) {
        // Read again at the next check.
        return this.#fleet.failed(error, 'revalidation log')
      }
      if (missed === 'gone') {
        this.#log.warn({ applied, newest: seq }, 'revalidation log does not reach back: regenerating every kept page')
        this.#pages.revalidate('everything')
      } else {
        for (const message of missed) if (!this.#taking.has(message.seq)) this.#pages.revalidate(message)
      }
      this.#applied = Math.max(this.#applied ?? 0, seq)
      await this.#acknowledge(seq)
    })
    return this.#catchingUp
  }

  async close(): Promise<void> {
    clearInterval(this.#timer)
    this.#fleet.close()
  }
}
