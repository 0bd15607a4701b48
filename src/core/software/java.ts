import type { Config } from '../../config/schema';
import { SOFTWARE, type SoftwareName } from './kinds';
import { isAtLeast, requireGameVersion } from './version';

/** Java majors the `[java]` section names a binary for. */
export type JavaMajor = 16 | 17 | 21;

export type JavaConfig = Pick<Config['java'], 'java_16' | 'java_17' | 'java_21'>;

/** Binary used when neither the group nor `[java]` names one: whatever `java` PATH finds. */
export const DEFAULT_JAVA = 'java';

/**
 * The Java a server needs: Velocity 21 whatever its own version; Minecraft 1.20.5+ 21,
 * 1.18 to 1.20.4 17, anything older 16 (the `[java]` key comments say the same).
 * Throws SERVICE_START_FAILED for a backend whose version is not a Minecraft version.
 */
export function javaMajorFor(software: SoftwareName, version: string): JavaMajor {
  if (SOFTWARE[software].isProxy) return 21;
  const parsed = requireGameVersion(version, software);
  if (isAtLeast(parsed, '1.20.5')) return 21;
  if (isAtLeast(parsed, '1.18')) return 17;
  return 16;
}

/** A non-blank group `javaPath` wins; then the `[java]` key for the major; blank means `java`. */
export function javaBinaryFor(major: JavaMajor, javaConfig: JavaConfig, javaPath?: string | null): string {
  const own = javaPath?.trim();
  if (own) return own;
  const configured = javaConfig[`java_${major}`].trim();
  return configured || DEFAULT_JAVA;
}

/** `javaMajorFor` then `javaBinaryFor`; the major is only needed when the group names no binary. */
export function selectJava(
  software: SoftwareName,
  version: string,
  javaConfig: JavaConfig,
  javaPath?: string | null,
): string {
  const own = javaPath?.trim();
  if (own) return own;
  return javaBinaryFor(javaMajorFor(software, version), javaConfig);
}

/**
 * Which Java `selectJava` picked and why, for messages an operator acts on:
 * `the group's javaPath "/opt/jdk/bin/java"`, `[java] java_17 "/usr/lib/jvm/17/bin/java"`, or
 * `"java" from PATH (the Java 17 this version needs; [java] java_17 is blank)`.
 */
export function describeJava(software: SoftwareName, version: string, javaConfig: JavaConfig, javaPath?: string | null): string {
  const own = javaPath?.trim();
  if (own) return `the group's javaPath "${own}"`;
  const major = javaMajorFor(software, version);
  const configured = javaConfig[`java_${major}`].trim();
  if (configured) return `[java] java_${major} "${configured}"`;
  return `"${DEFAULT_JAVA}" from PATH (the Java ${major} this version needs; [java] java_${major} is blank)`;
}
