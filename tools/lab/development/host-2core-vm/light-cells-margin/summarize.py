"""Summarizes emu's lines (results.txt, or the files named): seed, then emu's output."""
import sys
files = sys.argv[1:] or ['results.txt']
rows = {}
for path in files:
    for line in open(path):
        f = line.split()
        if f[1] == 'limit': continue
        seed = int(f[0]); head = f[1:11]
        rest = ' '.join(f[11:]).replace('|', ';').replace(',', ';')
        rows[seed] = (head, [list(map(int, g.split())) for g in rest.split(';') if g.strip()])
print('scenes run (<= 1024 spheres):', len(rows))
names = ['now/own-cell', 'now/warp-union', 'fixA/own-cell', 'fixA/warp-union', 'brief/own-cell',
         'brief/warp-union', 'diff/own-cell', 'diff/warp-union']
for g, name in enumerate(names):
    sure = sorted(s for s, (h, gr) in rows.items() if gr[g][0] + gr[g][1] > 0)
    maybe = sorted(set(s for s, (h, gr) in rows.items() if gr[g][2] + gr[g][3] > 0) - set(sure))
    pix = sorted(s for s, (h, gr) in rows.items() if gr[g][4] > 0)
    pixm = sorted(set(s for s, (h, gr) in rows.items() if gr[g][5] > 0) - set(pix))
    rays = sum(gr[g][0] + gr[g][1] for h, gr in rows.values()); px = sum(gr[g][4] for h, gr in rows.values())
    print(f'{name}: seeds where a shadow decision differs {len(sure)} (+{len(maybe)} maybe), where pixels differ {len(pix)} (+{len(pixm)} maybe); {rays} rays, {px} pixels')
    if name.startswith('now'): print('   seeds:', sure); print('   decision differs, pixels do not:', sorted(set(sure) - set(pix)))
    elif sure or maybe: print('   seeds:', sure, 'maybe:', maybe)
print('stage arithmetic (all spheres) vs spec mismatches:', [s for s, (h, gr) in rows.items() if int(h[4]) > 0])
print('primary tile-bin losses:', [s for s, (h, gr) in rows.items() if int(h[5]) + int(h[6]) > 0])
print('worst (h - r)/D over the reference blockers: %.3e' % max(float(h[7]) for h, g in rows.values()))
print('largest reach a failure needed: %.3e' % max(float(h[8]) for h, g in rows.values()))
tot = sum(int(h[2]) for h, g in rows.values()); fb = sum(int(h[9]) for h, g in rows.values())
print('shadow rays %d; the diff sends %d (%.4f%%) to the all-spheres row, in %d scenes' % (tot, fb, 100.0 * fb / tot, sum(1 for h, g in rows.values() if int(h[9]))))
