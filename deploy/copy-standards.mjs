// Copies the standards texts a product file must ship from the shared reference folder next to the
// repository (../shared/standards, or PAYMESH_STANDARDS_DIR) into the services' dist folders. They
// are read at build time and never committed: today the GDPdU DTD, which every tax-audit export
// of billing carries beside its index.xml (docs/datev-gdpdu.md).
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const standards = process.env.PAYMESH_STANDARDS_DIR ?? resolve(root, '..', 'shared', 'standards');
const copies = [
  {
    from: join(standards, 'gdpdu', 'gdpdu-01-08-2002.dtd'),
    to: join(root, 'services', 'billing', 'dist', 'standards'),
  },
];

for (const c of copies) {
  if (!existsSync(c.from)) {
    console.warn(
      `standards: ${c.from} not found; the GDPdU export answers 503 GDPDU_DTD_MISSING until the DTD is there (set PAYMESH_STANDARDS_DIR or GDPDU_DTD_PATH)`,
    );
    continue;
  }
  mkdirSync(c.to, { recursive: true });
  copyFileSync(c.from, join(c.to, c.from.split(/[\\/]/).pop()));
  console.log(`standards: copied ${c.from} into ${c.to}`);
}
