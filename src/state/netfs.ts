import fs from 'node:fs';
import path from 'node:path';

// SQLite's file locking is unreliable on network filesystems (SMB/CIFS, NFS, sshfs): two processes
// can both believe they hold a write lock and corrupt the database. We refuse such state paths.

/** Filesystem types on which we refuse to keep state.db. */
export const NETWORK_FS_TYPES = [
  'cifs',
  'smb',
  'smb2',
  'smb3',
  'smbfs',
  'nfs',
  'nfs4',
  'ceph',
  'glusterfs',
  'fuse.sshfs',
  'fuse.glusterfs',
  'fuse.smbnetfs',
  'fuse.rclone',
  'davfs',
  'fuse.davfs2',
  '9p',
  'afs',
];

export interface MountEntry {
  mountPoint: string;
  fsType: string;
}

/** Mount points from /proc/mounts (octal escapes such as \040 for spaces decoded); [] where absent. */
export function readMounts(file = '/proc/mounts'): MountEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const unescape = (s: string) =>
    s.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8)));
  return text
    .split('\n')
    .map((line) => line.split(' '))
    .filter((f) => f.length >= 3)
    .map((f) => ({ mountPoint: unescape(f[1] ?? ''), fsType: f[2] ?? '' }));
}

/** The mount holding `p` (longest mount point prefix of its absolute path). */
export function mountOf(p: string, mounts: MountEntry[]): MountEntry | undefined {
  const abs = path.resolve(p);
  let best: MountEntry | undefined;
  for (const m of mounts) {
    const mp = m.mountPoint;
    const inside = mp === '/' || abs === mp || abs.startsWith(mp.endsWith('/') ? mp : mp + '/');
    if (inside && (!best || mp.length >= best.mountPoint.length)) best = m;
  }
  return best;
}

/** The network filesystem type `p` lies on, or undefined when it is on a local one. */
export function networkFsType(p: string, mounts: MountEntry[] = readMounts()): string | undefined {
  const m = mountOf(p, mounts);
  if (!m) return undefined;
  const t = m.fsType.toLowerCase();
  return NETWORK_FS_TYPES.includes(t) || t.startsWith('nfs') || t.startsWith('smb') ? m.fsType : undefined;
}
