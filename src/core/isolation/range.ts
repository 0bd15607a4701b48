/**
 * The service uid range: `[services] isolation_uid_base` and the UID_COUNT uids after it. The
 * default base, 1,900,000,000, is far from every range a distribution hands out: regular users
 * (1000–60000), systemd's dynamic users (61184–65519), the /etc/subuid blocks useradd gives
 * rootless containers (100000 up, 65536 each) and systemd-nspawn's container range
 * (524288–1879048191); base + count stays below systemd's foreign range (2147352576) and 2^31
 * (some tools still read a uid as a signed 32-bit number).
 */
export const UID_COUNT = 1 << 24;
export const DEFAULT_UID_BASE = 1_900_000_000;
/** The highest base that keeps the whole range below 2^31. */
export const MAX_UID_BASE = 2 ** 31 - 1 - UID_COUNT;
/** Below this are the 16-bit ids every system uses (65534 is nobody). */
export const MIN_UID_BASE = 65_536;
