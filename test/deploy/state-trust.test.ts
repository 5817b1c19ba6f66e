/**
 * deploy/state-trust.ts with a real second local user: a state folder, a `courier.env` or a TLS key that another user
 * owns, may write or may read is refused with its code, the path and the fix; what only the deploy's user (or root)
 * controls is accepted, certbot's `live/` links into `archive/` included; a state folder the deploy makes is 0700.
 * The deploy's command refuses the same way before it starts anything (test/scale/state-trust.test.ts runs it whole).
 *
 * Needs root, to hand folders and files to another user (CI runs as root); skipped otherwise.
 */
import t, { type Test } from 'tap'
import { spawnSync } from 'node:child_process'
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { checkKeyPair, readEnvFile } from '../../deploy/instance-env.ts'
import { trustStateFolder, UntrustedPathError } from '../../deploy/state-trust.ts'
import { makeCertificate } from '../scale/deploy-run.ts'

const isRoot = process.getuid?.() === 0
const otherUser = 'courier-test-other'

/** The uid of a system user of the tests' own, made if missing. */
function otherUid(): number {
  if (spawnSync('id', ['-u', otherUser]).status !== 0) {
    const made = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', otherUser])
    if (made.status !== 0) throw new Error(`useradd ${otherUser} failed: ${made.stderr}`)
  }
  return Number(spawnSync('id', ['-u', otherUser], { encoding: 'utf8' }).stdout.trim())
}

/** A folder in the system's temporary folder (sticky, root's), removed on teardown. */
function folder(t: Test): string {
  const made = mkdtempSync(path.join(tmpdir(), 'courier-trust-'))
  t.teardown(() => rmSync(made, { recursive: true, force: true }))
  return made
}

async function refusal(promise: Promise<unknown>): Promise<UntrustedPathError | undefined> {
  return promise.then(
    () => undefined,
    (error: unknown) => {
      if (error instanceof UntrustedPathError) return error
      throw error
    },
  )
}

t.test('state folders', { skip: isRoot ? false : 'needs root to give a folder to another user' }, async (t) => {
  const uid = otherUid()

  const theirs = folder(t)
  chownSync(theirs, uid, uid)
  const owned = await refusal(trustStateFolder(theirs))
  t.equal(owned?.code, 'COURIER_ERR_DEPLOY_UNTRUSTED_STATE', "another user's state folder is refused")
  t.match(owned?.message ?? '', `the state folder ${theirs} is owned by uid ${uid}`, 'naming the folder and owner')
  t.match(owned?.message ?? '', `chown -R root ${theirs} && chmod 700 ${theirs}`, 'and the fix')
  t.equal(statSync(theirs).uid, uid, 'and left as it was')

  const open = folder(t)
  chmodSync(open, 0o777)
  const writable = await refusal(trustStateFolder(open))
  t.equal(writable?.code, 'COURIER_ERR_DEPLOY_UNTRUSTED_STATE', 'a state folder of mode 0777 is refused')
  t.match(writable?.message ?? '', `${open} is writable by others (mode 777)`)
  t.match(writable?.message ?? '', `chmod 700 ${open}`)
  chmodSync(open, 0o770)
  t.ok(await refusal(trustStateFolder(open)), 'so is one its group may write (0770)')
  chmodSync(open, 0o755)
  t.equal(await refusal(trustStateFolder(open)), undefined, 'one only its owner writes (0755) is accepted')

  const link = path.join(folder(t), 'state')
  symlinkSync(folder(t), link)
  spawnSync('chown', ['-h', String(uid), link])
  t.equal((await refusal(trustStateFolder(link)))?.code, 'COURIER_ERR_DEPLOY_UNTRUSTED_STATE', "another's link")
})

t.test(
  'folders above the state',
  { skip: isRoot ? false : 'needs root to give a folder to another user' },
  async (t) => {
    const uid = otherUid()

    const openParent = folder(t)
    chmodSync(openParent, 0o777)
    const state = path.join(openParent, 'state')
    mkdirSync(state, { mode: 0o700 })
    const swappable = await refusal(trustStateFolder(state))
    t.equal(swappable?.code, 'COURIER_ERR_DEPLOY_UNTRUSTED_STATE', 'under a folder others may write (not sticky)')
    t.match(
      swappable?.message ?? '',
      `${openParent}, above the state folder ${state}, is writable by others (mode 777)`,
    )
    t.match(swappable?.message ?? '', `chmod go-w ${openParent}`)
    const notYet = path.join(openParent, 'new-state')
    t.ok(await refusal(trustStateFolder(notYet)), 'a state folder to make there is refused too')
    t.throws(() => statSync(notYet), 'and not made')

    chmodSync(openParent, 0o1777)
    t.equal(await refusal(trustStateFolder(state)), undefined, "under a sticky folder of root's (as /tmp) it is fine")

    const theirParent = folder(t)
    chownSync(theirParent, uid, uid)
    chmodSync(theirParent, 0o755)
    const inside = path.join(theirParent, 'state')
    mkdirSync(inside, { mode: 0o700 })
    const underTheirs = await refusal(trustStateFolder(inside))
    t.equal(
      underTheirs?.code,
      'COURIER_ERR_DEPLOY_UNTRUSTED_STATE',
      "under another user's folder, though the state is mine",
    )
    t.match(underTheirs?.message ?? '', `${theirParent}, above the state folder ${inside}, is owned by uid ${uid}`)
  },
)

t.test('a state folder the deploy makes is its own, mode 0700', async (t) => {
  const state = path.join(folder(t), 'new', 'state')
  const previous = process.umask(0o022)
  t.teardown(() => void process.umask(previous))
  await trustStateFolder(state)
  t.equal(statSync(state).mode & 0o777, 0o700, 'the state folder: 0700, whatever the umask')
  t.equal(statSync(path.dirname(state)).mode & 0o777, 0o700, 'and a folder made above it')
  t.equal(await refusal(trustStateFolder(state)), undefined, 'then trusted as it is')
})

t.test('courier.env', { skip: isRoot ? false : 'needs root to give a file to another user' }, async (t) => {
  const uid = otherUid()
  const state = folder(t)
  const envFile = path.join(state, 'courier.env')
  writeFileSync(envFile, 'NODE_OPTIONS=--require=/tmp/theirs.js\n', { mode: 0o600 })
  t.same(await readEnvFile(envFile), { NODE_OPTIONS: '--require=/tmp/theirs.js' }, 'mine, 0600: read')

  for (const mode of [0o644, 0o666, 0o640, 0o620]) {
    chmodSync(envFile, mode)
    const refused = await refusal(readEnvFile(envFile))
    t.equal(refused?.code, 'COURIER_ERR_DEPLOY_UNTRUSTED_ENV_FILE', `mode ${mode.toString(8)}: refused`)
    t.equal(refused?.message, `${envFile} is mode ${mode.toString(8)}, open to other users: \`chmod 600 ${envFile}\``)
  }
  chmodSync(envFile, 0o600)
  chownSync(envFile, uid, uid)
  const theirs = await refusal(readEnvFile(envFile))
  t.equal(theirs?.code, 'COURIER_ERR_DEPLOY_UNTRUSTED_ENV_FILE', "another user's, though 0600: refused")
  t.match(theirs?.message ?? '', `${envFile} is owned by uid ${uid}, not by you (uid 0) or root`)

  const elsewhere = path.join(folder(t), 'shared.env')
  writeFileSync(elsewhere, 'LOG_LEVEL=info\n', { mode: 0o644 })
  const linked = path.join(folder(t), 'courier.env')
  symlinkSync(elsewhere, linked)
  const throughLink = await refusal(readEnvFile(linked))
  t.match(throughLink?.message ?? '', `${linked} (${elsewhere}) is mode 644`, 'a link: the file it names is checked')
  t.same(await readEnvFile(path.join(folder(t), 'courier.env')), {}, 'no env file: no variables, as before')
})

t.test('the TLS key', { skip: isRoot ? false : 'needs root to give a file to another user' }, async (t) => {
  const uid = otherUid()
  // certbot's layout: live/<name>/privkey.pem, a link of root's into archive/<name>/privkey1.pem (0600).
  const letsencrypt = folder(t)
  const archive = path.join(letsencrypt, 'archive', 'localhost')
  const live = path.join(letsencrypt, 'live', 'localhost')
  mkdirSync(archive, { recursive: true, mode: 0o700 })
  mkdirSync(live, { recursive: true, mode: 0o755 })
  const made = makeCertificate(archive, 'cert1')
  const tls = {
    listen: '127.0.0.1:8443',
    certificate: path.join(live, 'fullchain.pem'),
    key: path.join(live, 'privkey.pem'),
  }
  symlinkSync('../../archive/localhost/cert1.pem', tls.certificate)
  symlinkSync('../../archive/localhost/cert1.key', tls.key)
  t.equal(statSync(made.key).mode & 0o777, 0o600, 'openssl writes the key 0600')
  await t.resolves(checkKeyPair(tls), "certbot's live/ link to a private key in archive/: accepted")

  chmodSync(made.key, 0o644)
  const readable = await refusal(checkKeyPair(tls))
  t.equal(readable?.code, 'COURIER_ERR_DEPLOY_UNTRUSTED_TLS_KEY', 'a key others may read is refused')
  t.equal(
    readable?.message,
    `${tls.key} (${made.key}) is mode 644, open to other users: \`chmod 600 ${made.key}\``,
    'naming the link, the file and the fix',
  )
  chmodSync(made.key, 0o640)
  t.ok(await refusal(checkKeyPair(tls)), 'one its group may read (0640) too')

  chmodSync(made.key, 0o600)
  chownSync(made.key, uid, uid)
  const theirs = await refusal(checkKeyPair(tls))
  t.equal(theirs?.code, 'COURIER_ERR_DEPLOY_UNTRUSTED_TLS_KEY', "another user's key is refused")
  t.match(theirs?.message ?? '', `is owned by uid ${uid}`)
})
