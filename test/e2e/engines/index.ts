/**
 * The three engines by name: where each one's binaries are, whether they are installed here, and how to launch it.
 * Nothing here downloads a browser.
 */
import { accessSync, constants } from 'node:fs'
import { chromiumPath } from '../harness.ts'
import { launchChromium } from './chromium.ts'
import { firefoxPath, launchFirefox } from './firefox.ts'
import type { Engine, EngineLaunchOptions, EngineName } from './types.ts'
import { launchWebKit, miniBrowserPath, webkitDriverPath, xvfbRunPath } from './webkit.ts'

export { engineNames, type EngineName } from './types.ts'

/** The executables each engine needs, and the Debian package that brings each. */
export const requirements: Record<EngineName, Array<{ file: string; pkg: string }>> = {
  chromium: [{ file: chromiumPath, pkg: 'chromium' }],
  firefox: [{ file: firefoxPath, pkg: 'firefox-esr' }],
  webkit: [
    { file: webkitDriverPath, pkg: 'webkit2gtk-driver' },
    { file: miniBrowserPath, pkg: 'libwebkit2gtk-4.1-0, which webkit2gtk-driver brings' },
    { file: xvfbRunPath, pkg: 'xvfb' },
  ],
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** What is missing for `name` ([] when it can run here). */
export function missingFor(name: EngineName): Array<{ file: string; pkg: string }> {
  return requirements[name].filter(({ file }) => !executable(file))
}

export function isEngineName(value: string): value is EngineName {
  return value === 'chromium' || value === 'firefox' || value === 'webkit'
}

export function launchEngine(name: EngineName, options: EngineLaunchOptions): Promise<Engine> {
  switch (name) {
    case 'chromium':
      return launchChromium()
    case 'firefox':
      return launchFirefox()
    case 'webkit':
      return launchWebKit(options)
  }
}
