/**
 * The syncer thread: an fdatasync of the archive's fd per message, so the disk writes what the
 * writer thread has written so far while everything else goes on (the final fsync then has
 * little left). A failure is left to that final fsync, which reports it. Answers 0 when done.
 */
import { fdatasyncSync } from 'node:fs';
import { serveMessages } from '../../../core/threads/serve-messages';

serveMessages<number, 0>((fd, reply) => {
  try {
    fdatasyncSync(fd);
  } catch {
    // reported by the final fsync
  }
  reply(0);
});
