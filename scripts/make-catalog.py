#!/usr/bin/env python3
"""Generate Riffle's bundled offline catalog and the audio/image test fixtures.

Run from anywhere (paths are resolved relative to the repository root):

    python3 scripts/make-catalog.py

Requirements: Python 3 (standard library only) plus the `sox`, `lame` and
`ffmpeg` command-line tools on PATH (Debian: `apt-get install sox lame`; `soxi` needs
`libsox-fmt-mp3` to read MP3s, but this script itself never decodes MP3).

What it writes (everything else in the repository is left alone):

  Resources/Catalog/
    songs.json                 feed-format catalog (URLs relative to this file)
    audio/riffle-00N.mp3       6 synthesized songs, 15-40 s, stereo 44.1 kHz,
                               CBR 128 kbps (lame -b 128 --cbr -q 2), ID3v2 tags
    covers/riffle-00N.png      320x320 RGB cover art, one per song
  Tests/Fixtures/
    short-1.mp3, short-2.mp3   2.0 s / 3.0 s musical clips, stereo 44.1 kHz 128k
    mono-22k.mp3               2.0 s mono 22050 Hz 64 kbps clip
    corrupt.mp3                20 KiB of pseudo-random bytes (contains no 0xFF
                               byte, so no MPEG frame sync can ever be found)
    short.m4a                  4.0 s AAC-LC 128k stereo 44.1 kHz, moov first
                               (ffmpeg -c:a aac -movflags +faststart)
    moov-last.m4a              the same audio with the moov box after the audio
    mono-22k.m4a               2.0 s AAC-LC 64k mono 22050 Hz
    truncated.m4a              the first half of moov-last.m4a (no moov box)
    cover.png                  64x64 RGB PNG

How the music is made: every song is a small deterministic arrangement (chord
progression on a pad or plucked chords, a bass line, a seeded random-walk
melody, optional arpeggio and synthesized drums).  Notes are rendered from
single-cycle wavetables with envelopes, each distinct note waveform is
rendered once and cached, and the notes are laid out as non-overlapping mono
float32 tracks (plain byte concatenation, no per-sample Python work).  sox sums
the tracks with equal-power pan gains (`-M` + `remix`), polishes the result
(reverb 30, fades, normalisation to -1.5 dBFS; `-R` makes dither repeatable)
and lame encodes it.  Runs in roughly 30-40 s.  All randomness comes from fixed seeds, so with the same
sox/lame versions every run produces byte-identical files.

Durations in songs.json are computed from the MP3 itself (LAME/Info header:
frames * samples_per_frame - encoder delay - padding), i.e. the gapless length.
"""

import array
import json
import math
import operator
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from itertools import accumulate, repeat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATALOG_DIR = os.path.join(ROOT, "Resources", "Catalog")
FIXTURE_DIR = os.path.join(ROOT, "Tests", "Fixtures")

SR = 44100

# --------------------------------------------------------------------------
# Wavetable synthesis
# --------------------------------------------------------------------------

TBL_BITS = 12
TBL = 1 << TBL_BITS
MASK = TBL - 1
FRAC = 20  # fixed-point fractional bits for the phase accumulator


def _make_table(harmonics):
    tab = []
    for i in range(TBL):
        x = 2.0 * math.pi * i / TBL
        tab.append(sum(a * math.sin(n * x) for n, a in harmonics))
    peak = max(abs(v) for v in tab)
    return [v / peak for v in tab]


TABLES = {
    "sine": _make_table([(1, 1.0)]),
    # soft sawtooth, harmonics rolled off
    "warm": _make_table([(n, (1.0 / n) * 0.78 ** (n - 1)) for n in range(1, 13)]),
    # brighter sawtooth for plucks
    "bright": _make_table([(n, (1.0 / n) * 0.92 ** (n - 1)) for n in range(1, 20)]),
    # triangle-ish: odd harmonics 1/n^2
    "hollow": _make_table([(n, (1.0 / (n * n)) * (-1) ** ((n - 1) // 2))
                           for n in range(1, 12, 2)]),
    # soft square
    "square": _make_table([(n, (1.0 / n) * 0.8 ** (n - 1)) for n in range(1, 14, 2)]),
    # drawbar-organ flavour
    "organ": _make_table([(1, 1.0), (2, 0.55), (3, 0.25), (4, 0.3), (6, 0.12), (8, 0.08)]),
    # flute-like: strong fundamental, a whisper of overtones
    "flute": _make_table([(1, 1.0), (2, 0.18), (3, 0.08), (4, 0.03)]),
    # bass: fundamental plus a few harmonics so it survives small speakers
    "bass": _make_table([(1, 1.0), (2, 0.45), (3, 0.22), (4, 0.1), (5, 0.05)]),
}


def midi_freq(m):
    return 440.0 * 2.0 ** ((m - 69) / 12.0)


def osc(table, freq, n, phase=0.0):
    """n samples of a wavetable oscillator (nearest-sample lookup, fixed point)."""
    tab = TABLES[table]
    inc = int(round(freq * TBL / SR * (1 << FRAC)))
    off = int(phase * TBL) << FRAC
    return [tab[((off + i * inc) >> FRAC) & MASK] for i in range(n)]


def exp_decay(n, tau_s):
    if n <= 0:
        return []
    k = math.exp(-1.0 / (tau_s * SR))
    return list(accumulate(repeat(k, n - 1), operator.mul, initial=1.0))


def envelope(gate, rel, atk, tau_s=None):
    """Attack ramp, sustain (optionally exponentially decaying), linear release."""
    n = gate + rel
    a = max(1, min(atk, gate))
    shape = [i / a for i in range(a)] + [1.0] * (gate - a) + \
            [(rel - i) / rel for i in range(rel)]
    if tau_s is not None:
        shape = list(map(operator.mul, shape, exp_decay(n, tau_s)))
    return shape


def mul(a, b):
    return list(map(operator.mul, a, b))


def add(a, b):
    return list(map(operator.add, a, b))


def scale(a, g):
    return [g * x for x in a]


_NOTE_CACHE = {}


def note(inst, midi, gate, table):
    """Render one note (cached by instrument, table, pitch and gate length)."""
    key = (inst, table, midi, gate)
    w = _NOTE_CACHE.get(key)
    if w is not None:
        return w
    f = midi_freq(midi)
    ms = SR // 1000
    if inst == "pad":
        rel = int(0.6 * SR)
        n = gate + rel
        det = 2.0 ** (7 / 1200.0)
        w = add(osc(table, f * det, n), osc(table, f / det, n, 0.37))
        w = add(scale(w, 0.5), scale(osc("sine", f * 0.5, n), 0.25))
        w = mul(w, envelope(gate, rel, int(0.35 * SR), 8.0))
    elif inst == "pluck":
        rel = 60 * ms
        n = gate + rel
        bright = mul(osc(table, f, n), exp_decay(n, 0.07))
        body = mul(osc("warm", f * 1.002, n, 0.21), exp_decay(n, 0.45))
        w = mul(add(scale(bright, 0.6), scale(body, 0.5)), envelope(gate, rel, 2 * ms))
    elif inst == "arp":
        rel = 40 * ms
        n = gate + rel
        w = mul(add(scale(osc(table, f, n), 0.7), scale(osc("sine", f * 2, n), 0.3)),
                envelope(gate, rel, 2 * ms, 0.16))
    elif inst == "bass":
        rel = 40 * ms
        n = gate + rel
        w = mul(osc(table, f, n), envelope(gate, rel, 4 * ms, 0.9))
    elif inst == "lead":
        rel = 90 * ms
        n = gate + rel
        det = 2.0 ** (4 / 1200.0)
        w = scale(add(osc(table, f * det, n), osc(table, f / det, n, 0.5)), 0.5)
        w = mul(w, envelope(gate, rel, 14 * ms, 1.6))
    else:
        raise ValueError(inst)
    w = array.array("f", w)
    _NOTE_CACHE[key] = w
    return w


def drum_kit(seed, kick_tune=1.0):
    """Kick (pitched-down sine), snare (tone + shaped noise), closed/open hats."""
    rng = random.Random(seed)
    ms = SR // 1000
    # kick: sine whose pitch falls from ~150 Hz to ~48 Hz
    n = int(0.45 * SR)
    freqs = [(48.0 + 105.0 * math.exp(-i / (0.035 * SR))) * kick_tune for i in range(n)]
    ph = accumulate(freqs)
    w = 2.0 * math.pi / SR
    kick = [math.sin(p * w) for p in ph]
    kick = mul(kick, exp_decay(n, 0.16))
    click = [(rng.random() * 2 - 1) * (1 - i / (3 * ms)) * 0.25 for i in range(3 * ms)]
    kick[:len(click)] = add(kick[:len(click)], click)
    kick = mul(kick, [1.0] * (n - 200) + [(200 - i) / 200 for i in range(200)])

    def noise(m):
        return [rng.random() * 2 - 1 for _ in range(m)]

    def hp(x):  # first difference: crude high-pass
        return [0.0] + list(map(operator.sub, x[1:], x[:-1]))

    n = int(0.28 * SR)
    tone = mul(osc("sine", 185.0, n), exp_decay(n, 0.045))
    sn = mul(hp(noise(n)), exp_decay(n, 0.075))
    snare = add(scale(tone, 0.55), scale(sn, 0.5))
    snare = mul(snare, [min(1.0, i / (1 * ms)) for i in range(n)])

    n = int(0.09 * SR)
    chat = scale(mul(hp(hp(noise(n))), exp_decay(n, 0.014)), 0.3)
    n = int(0.35 * SR)
    ohat = scale(mul(hp(hp(noise(n))), exp_decay(n, 0.085)), 0.3)
    return {k: array.array("f", v) for k, v in
            (("kick", kick), ("snare", snare), ("chat", chat), ("ohat", ohat))}


class Mix:
    """Collects note placements and lays them out as non-overlapping tracks.

    Every note is pre-scaled by its gain (cached) and assigned to the first
    track with the same pan position that is free at its start time, so a
    track is just notes separated by silence and can be built by byte
    concatenation.  sox then sums the tracks (`-M` + `remix`) with
    equal-power pan gains, which keeps the per-sample work out of Python.
    """

    def __init__(self, n):
        self.n = n
        self.tracks = []  # [pan, end, [(start, scaled_array), ...]]
        self._scaled = {}

    def add(self, w, start, gain, pan=0.0):
        """Place waveform w at sample `start` with gain and pan in [-1, 1]."""
        if start >= self.n:
            return
        key = (id(w), gain)
        hit = self._scaled.get(key)
        if hit is None:
            hit = (w, array.array("f", [gain * x for x in w]))  # keep w alive
            self._scaled[key] = hit
        ws = hit[1]
        for tr in self.tracks:
            if tr[0] == pan and tr[1] <= start:
                break
        else:
            tr = [pan, 0, []]
            self.tracks.append(tr)
        tr[1] = start + len(ws)
        tr[2].append((start, ws))

    def write(self, tmp):
        """Write each track as mono little-endian float32; return [(path, pan)]."""
        out = []
        for i, (pan, _end, parts) in enumerate(self.tracks):
            chunks, cur = [], 0
            for start, ws in parts:
                if start > cur:
                    chunks.append(bytes(4 * (start - cur)))
                seg = ws[:self.n - start]
                if sys.byteorder != "little":
                    seg = array.array("f", seg)
                    seg.byteswap()
                chunks.append(seg.tobytes())
                cur = start + len(seg)
            chunks.append(bytes(4 * (self.n - cur)))
            path = os.path.join(tmp, "track%03d.raw" % i)
            with open(path, "wb") as f:
                f.write(b"".join(chunks))
            out.append((path, pan))
        return out


# --------------------------------------------------------------------------
# Arrangement
# --------------------------------------------------------------------------

MAJOR = [0, 2, 4, 5, 7, 9, 11]
MINOR = [0, 2, 3, 5, 7, 8, 10]

# Drum patterns on a 16-step grid: (step, velocity)
DRUMS = {
    "four": {"kick": [(0, 1), (4, 1), (8, 1), (12, 1)],
             "snare": [(4, .8), (12, .8)],
             "chat": [(s, .55 if s % 4 == 2 else .3) for s in range(16) if s % 4 != 2],
             "ohat": [(2, .5), (6, .5), (10, .5), (14, .5)]},
    "backbeat": {"kick": [(0, 1), (7, .7), (8, .9)],
                 "snare": [(4, .9), (12, .9)],
                 "chat": [(s, .6 if s % 4 == 0 else .4) for s in range(0, 16, 2)],
                 "ohat": [(14, .45)]},
    "halftime": {"kick": [(0, 1), (10, .8)],
                 "snare": [(8, .9)],
                 "chat": [(s, .45 if s % 4 == 0 else .25) for s in range(0, 16, 2)] +
                         [(7, .15), (15, .15)],
                 "ohat": []},
    "broken": {"kick": [(0, 1), (3, .7), (10, .9)],
               "snare": [(4, .9), (12, .9), (15, .25)],
               "chat": [(s, .5 if s % 2 == 0 else .25) for s in range(16)],
               "ohat": [(6, .4)]},
}
DRUM_GAIN = {"kick": 0.62, "snare": 0.34, "chat": 0.3, "ohat": 0.2}
DRUM_PAN = {"kick": 0.0, "snare": 0.06, "chat": 0.32, "ohat": -0.25}

# Bass patterns: (step16, length16, interval in scale degrees from chord root,
# octave offset)
BASS = {
    "sustain": [(0, 7, 0, 0), (8, 6, 4, 0), (14, 2, 0, 0)],
    "pulse8": [(s, 2, 0, 1 if s in (6, 14) else 0) for s in range(0, 16, 2)],
    "root_fifth": [(0, 3, 0, 0), (4, 3, 0, 0), (8, 3, 4, 0), (12, 3, 0, 1)],
    "syncop": [(0, 3, 0, 0), (3, 3, 0, 0), (6, 2, 4, 0), (10, 3, 0, 1), (13, 3, 4, 0)],
}

# One-bar melody rhythms in eighth notes
RHYTHMS = [[2, 2, 2, 2], [3, 3, 2], [1, 1, 2, 2, 2], [4, 2, 2], [2, 1, 1, 4],
           [3, 1, 2, 2], [2, 2, 4], [1, 1, 1, 1, 2, 2], [6, 2]]


def degree_pc(scale_, deg):
    return scale_[deg % 7] + 12 * (deg // 7)


def render_song(spec, total_samples=None, fade_out=None):
    """Render a song spec into a Mix (note placements, not yet summed)."""
    rng = random.Random(spec["seed"])
    bpm = spec["bpm"]
    beat = 60.0 / bpm
    bar = 4 * beat
    six = bar / 16.0
    bars = spec["bars"]
    sc = MAJOR if spec["mode"] == "major" else MINOR
    key = spec["key"]
    prog = spec["prog"]
    intro = spec.get("intro", 1)
    full = spec.get("full", False)  # fixtures: everything from bar 0
    if full:
        intro = 0
    n = total_samples or int(round((bars * bar + spec["tail"]) * SR))
    mix = Mix(n)
    kit = drum_kit(spec["seed"] + 7, spec.get("kick_tune", 1.0))
    swing = spec.get("swing", 0.0)

    def pos(b, step):
        t = b * bar + step * six
        if step % 2 == 1:
            t += swing * six
        return int(round(t * SR))

    def samples(steps):
        return int(round(steps * six * SR))

    def chord_for(b):
        return 0 if (b == bars - 1 and not full) else prog[b % len(prog)]

    def chord_notes(deg, center, count):
        out = []
        for i in range(count):
            m = key + degree_pc(sc, deg + 2 * i)
            while m < center - 6:
                m += 12
            while m >= center + 6:
                m -= 12
            out.append(m)
        return sorted(out)

    # --- chords ---------------------------------------------------------
    pad_table = spec["pad_table"]
    for b in range(bars):
        deg = chord_for(b)
        last = (b == bars - 1) and not full
        voicing = chord_notes(deg, 62, 4 if spec.get("sevenths") else 3)
        if spec["chords"] == "pad" or last:
            gate = samples(16) + (int(spec["tail"] * SR * 0.5) if last else 0)
            for i, m in enumerate(voicing):
                mix.add(note("pad", m, gate, pad_table), pos(b, 0),
                        0.13, -0.35 if i % 2 == 0 else 0.35)
        else:
            for step, length in spec.get("strum", [(0, 5), (6, 4), (10, 6)]):
                gate = samples(length)
                for i, m in enumerate(voicing):
                    mix.add(note("pluck", m, gate, pad_table),
                            pos(b, step) + i * int(0.012 * SR),
                            0.11, -0.4 + 0.8 * i / max(1, len(voicing) - 1))

    # --- bass -------------------------------------------------------------
    for b in range(bars):
        deg = chord_for(b)
        root = key + degree_pc(sc, deg)
        root = 36 + (root - 36) % 12
        if b == bars - 1 and not full:
            mix.add(note("bass", root, samples(12), "bass"), pos(b, 0), 0.36)
            continue
        for step, length, iv, octv in BASS[spec["bass"]]:
            m = key + degree_pc(sc, deg + iv)
            m = 36 + (m - 36) % 12 + 12 * octv
            if iv and m < root:
                m += 12
            mix.add(note("bass", m, samples(length) - int(0.01 * SR), "bass"),
                    pos(b, step), 0.36)

    # --- drums ------------------------------------------------------------
    pat = DRUMS[spec["drums"]]
    for b in range(bars):
        if b < intro:
            continue
        if b == bars - 1 and not full:
            mix.add(kit["kick"], pos(b, 0), DRUM_GAIN["kick"])
            mix.add(kit["ohat"], pos(b, 0), DRUM_GAIN["ohat"], DRUM_PAN["ohat"])
            continue
        fill = (b % 4 == 3) and b != bars - 2 and not full
        for inst, hits in pat.items():
            for step, vel in hits:
                if fill and inst == "snare" and step >= 12:
                    continue
                mix.add(kit[inst], pos(b, step), DRUM_GAIN[inst] * vel, DRUM_PAN[inst])
        if fill:
            for j, step in enumerate((12, 13, 14, 15)):
                mix.add(kit["snare"], pos(b, step), DRUM_GAIN["snare"] * (0.45 + 0.15 * j),
                        DRUM_PAN["snare"])

    # --- arpeggio -----------------------------------------------------------
    arp = spec.get("arp")
    if arp:
        a0, a1, step_len = arp
        order = [0, 1, 2, 3, 2, 1, 0, 2]
        for b in range(bars):
            if not (a0 <= b < min(a1, bars - (0 if full else 1))):
                continue
            tones = chord_notes(chord_for(b), 74, 3)
            tones = tones + [tones[0] + 12]
            for k, step in enumerate(range(0, 16, step_len)):
                m = tones[order[k % len(order)]]
                mix.add(note("arp", m, samples(step_len) - int(0.005 * SR), spec["arp_table"]),
                        pos(b, step), 0.075 * (1.0 if k % 2 == 0 else 0.75), -0.45)

    # --- melody -------------------------------------------------------------
    lead_start = 0 if full else spec.get("lead_start", 2)
    lead_end = bars if full else bars - 1
    lo, hi = 7, 17  # scale degrees above the key's octave 4
    cur = 9 + rng.randrange(3)

    def bar_melody(deg_chord):
        nonlocal cur
        rhythm = rng.choice(RHYTHMS)
        chord_degs = {deg_chord % 7, (deg_chord + 2) % 7, (deg_chord + 4) % 7}
        out, t = [], 0
        for i, d in enumerate(rhythm):
            step = rng.choice([-2, -1, -1, 0, 1, 1, 2, 3, -3])
            cur += step
            if cur < lo:
                cur = lo + (lo - cur)
            if cur > hi:
                cur = hi - (cur - hi)
            if t % 4 == 0:  # strong beat: snap to nearest chord tone
                for delta in (0, 1, -1, 2, -2):
                    if (cur + delta) % 7 in chord_degs:
                        cur += delta
                        break
            rest = i > 0 and rng.random() < 0.12
            out.append((t, d, None if rest else cur))
            t += d
        return out

    b = lead_start
    while b < lead_end:
        motif = [bar_melody(chord_for(b + i)) for i in range(2)]
        phrase = motif + [motif[0], bar_melody(chord_for(b + 3))]
        for i, bm in enumerate(phrase):
            bb = b + i
            if bb >= lead_end:
                break
            for t8, d8, deg in bm:
                if deg is None:
                    continue
                m = key + 48 + degree_pc(sc, deg)
                gate = samples(2 * d8) - int(0.03 * SR)
                mix.add(note("lead", m, gate, spec["lead_table"]), pos(bb, 2 * t8),
                        0.2, 0.15)
        b += 4
    if not full:
        # cadence: tonic held on the final bar
        m = key + 48 + degree_pc(sc, 7 if cur < 11 else 14)
        mix.add(note("lead", m, samples(10), spec["lead_table"]), pos(bars - 1, 0), 0.2, 0.15)

    return mix


# --------------------------------------------------------------------------
# sox / lame plumbing
# --------------------------------------------------------------------------

def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("command failed: %s\n%s" % (" ".join(cmd), p.stderr))
    if "clip" in p.stderr.lower():
        print("  warning from %s: %s" % (cmd[0], p.stderr.strip()), file=sys.stderr)
    return p


RAW_IN = ["-t", "raw", "-r", str(SR), "-e", "floating-point", "-b", "32", "-c", "1",
          "--endian", "little"]


def encode(mix, out_mp3, tmp, title=None, artist=None, fade_in=0.05, fade_out=1.5,
           mono22k=False, bitrate=128):
    """Sum the mix's tracks with sox, polish, then encode with lame."""
    wav = mix_down(mix, tmp, fade_in, fade_out, mono22k)
    lcmd = ["lame", "--silent", "-b", str(bitrate), "--cbr", "-q", "2", "--id3v2-only"]
    if mono22k:
        lcmd += ["-m", "m"]
    if title:
        lcmd += ["--tt", title]
    if artist:
        lcmd += ["--ta", artist, "--tl", "Riffle Offline Catalog"]
    run(lcmd + [wav, out_mp3])


def encode_m4a(wav, out_m4a, bitrate=128, faststart=True):
    """AAC-LC in MP4 with FFmpeg's native encoder, as iTunes previews are (AAC-LC in M4A).

    `faststart` moves the sample table (moov box) before the audio, as streamed files have it;
    without it the table comes last.  The bitexact flags keep FFmpeg's version string out, so
    the bytes depend on the input and the encoder only.  Perceptual noise substitution is
    off (`-aac_pns 0`): with it the decoder fills bands from its own random generator, so
    audio decoded after a seek could never equal the same audio played through, and the
    tests compare exactly that.  (Apple's encoder, which makes iTunes previews, does not use
    it either.)"""
    cmd = ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", wav,
           "-c:a", "aac", "-b:a", "%dk" % bitrate, "-aac_pns", "0", "-map_metadata", "-1",
           "-fflags", "+bitexact", "-flags:a", "+bitexact"]
    if faststart:
        cmd += ["-movflags", "+faststart"]
    run(cmd + [out_m4a])


def mix_down(mix, tmp, fade_in, fade_out, mono22k):
    """Sums the mix's tracks to a polished 16-bit WAV in `tmp` with sox; returns its path."""
    for name in os.listdir(tmp):
        os.remove(os.path.join(tmp, name))
    tracks = mix.write(tmp)
    head = 0.3  # headroom so the sum never clips inside sox; normalised later
    left, right = [], []
    for ch, (_path, pan) in enumerate(tracks, 1):
        ang = (pan + 1.0) * math.pi / 4.0
        left.append("%dv%.6f" % (ch, head * math.cos(ang)))
        right.append("%dv%.6f" % (ch, head * math.sin(ang)))
    wav = os.path.join(tmp, "mix.wav")
    cmd = ["sox", "-R", "-V2", "-M"]
    for path, _pan in tracks:
        cmd += RAW_IN + [path]
    cmd += ["-b", "16", wav, "remix", ",".join(left), ",".join(right),
            "reverb", "30", "fade", "t", str(fade_in), "-0", str(fade_out)]
    if mono22k:
        cmd += ["remix", "-", "rate", "-v", "22050"]
    cmd += ["gain", "-n", "-1.5"]
    run(cmd)
    return wav


def mp3_duration(path):
    """Gapless duration from the Xing/Info + LAME tag of the first frame."""
    with open(path, "rb") as f:
        data = f.read(16384)
    pos = 0
    if data[:3] == b"ID3":
        sz = data[6:10]
        pos = 10 + ((sz[0] << 21) | (sz[1] << 14) | (sz[2] << 7) | sz[3])
    while not (data[pos] == 0xFF and (data[pos + 1] & 0xE0) == 0xE0):
        pos += 1
    b2, b3, b4 = data[pos + 1], data[pos + 2], data[pos + 3]
    ver = (b2 >> 3) & 3
    rate = [44100, 48000, 32000][(b3 >> 2) & 3] >> {3: 0, 2: 1, 0: 2}[ver]
    mono = ((b4 >> 6) & 3) == 3
    side = (17 if mono else 32) if ver == 3 else (9 if mono else 17)
    spf = 1152 if ver == 3 else 576
    x = pos + 4 + side
    if data[x:x + 4] not in (b"Xing", b"Info"):
        raise ValueError("no Info header in %s" % path)
    flags = struct.unpack(">I", data[x + 4:x + 8])[0]
    p = x + 8
    frames = None
    if flags & 1:
        frames = struct.unpack(">I", data[p:p + 4])[0]
        p += 4
    if flags & 2:
        p += 4
    if flags & 4:
        p += 100
    if flags & 8:
        p += 4
    d = data[p + 21:p + 24]
    delay = (d[0] << 4) | (d[1] >> 4)
    padding = ((d[1] & 0xF) << 8) | d[2]
    return (frames * spf - delay - padding) / rate


# --------------------------------------------------------------------------
# PNG covers (stdlib only)
# --------------------------------------------------------------------------

def png_bytes(width, height, rows):
    """rows: list of bytes objects of length 3*width (RGB8)."""
    raw = bytearray()
    prev = bytes(3 * width)
    for row in rows:
        # pick the cheaper of Sub / Up by sum of absolute residuals
        sub = bytes((row[i] - (row[i - 3] if i >= 3 else 0)) & 0xFF for i in range(len(row)))
        up = bytes((row[i] - prev[i]) & 0xFF for i in range(len(row)))
        cost = lambda r: sum(v if v < 128 else 256 - v for v in r)  # noqa: E731
        if cost(sub) <= cost(up):
            raw += b"\x01" + sub
        else:
            raw += b"\x02" + up
        prev = row

    def chunk(tag, payload):
        c = tag + payload
        return struct.pack(">I", len(payload)) + c + struct.pack(">I", zlib.crc32(c) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) +
            chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))


def hsv(h, s, v):
    h = (h % 1.0) * 6.0
    i = int(h)
    f = h - i
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    return [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i % 6]


def smooth(e0, e1, x):
    t = min(1.0, max(0.0, (x - e0) / (e1 - e0)))
    return t * t * (3 - 2 * t)


def cover(size, hue, style):
    c1 = hsv(hue, 0.55, 0.97)
    c2 = hsv(hue + 0.14, 0.8, 0.32)
    c3 = hsv(hue - 0.08, 0.25, 1.0)
    rows = []
    px = 1.0 / size
    for y in range(size):
        v = (y + 0.5) / size
        row = bytearray()
        for x in range(size):
            u = (x + 0.5) / size
            t = (u + v) * 0.5
            col = [c1[k] + (c2[k] - c1[k]) * t for k in range(3)]
            a = 0.0
            if style == "rings":  # concentric rings around an off-centre point
                d = math.hypot(u - 0.32, v - 0.38)
                ph = (d * 9.0) % 1.0
                a = 0.22 * smooth(0.5 - px * 9, 0.5 + px * 9, ph) * (1 - smooth(0.6, 0.95, d))
            elif style == "sun":  # striped setting sun
                d = math.hypot(u - 0.5, v - 0.56)
                disc = 1 - smooth(0.3 - px, 0.3 + px, d)
                cut = smooth(0.45 - px * 20, 0.45 + px * 20, ((v - 0.56) * 14) % 1.0) \
                    if v > 0.56 else 0.0
                a = 0.75 * disc * (1 - cut)
            elif style == "stripes":  # diagonal bands against the gradient
                s = ((u - v) * 6.0) % 1.0
                a = 0.18 * smooth(0.45, 0.55, s) * (1 - smooth(0.92, 0.98, s))
            elif style == "waves":  # stacked sine ridges
                w = v * 10.0 + 0.35 * math.sin(u * 2 * math.pi * 1.5 + v * 3.0)
                a = 0.2 * smooth(0.0, 0.12, w % 1.0) * (1 - smooth(0.3, 0.42, w % 1.0))
            elif style == "orbits":  # thin circles with a planet
                d = math.hypot(u - 0.5, v - 0.5)
                for r in (0.16, 0.27, 0.38):
                    a = max(a, 0.6 * (1 - smooth(px * 0.6, px * 2.2, abs(d - r))))
                a = max(a, 0.85 * (1 - smooth(0.045 - px, 0.045 + px,
                                              math.hypot(u - 0.5 - 0.27 * 0.6, v - 0.5 + 0.27 * 0.8))))
                a = max(a, 0.5 * (1 - smooth(0.09 - px, 0.09 + px, d)))
            elif style == "dots":  # halftone dot grid growing along the diagonal
                gx, gy = (u * 12) % 1.0 - 0.5, (v * 12) % 1.0 - 0.5
                r = 0.08 + 0.3 * t
                a = 0.35 * (1 - smooth(r - px * 6, r + px * 6, math.hypot(gx, gy)))
            col = [col[k] + (c3[k] - col[k]) * a for k in range(3)]
            row += bytes(int(c * 255 + 0.5) for c in col)
        rows.append(bytes(row))
    return png_bytes(size, size, rows)


# --------------------------------------------------------------------------
# Catalog definition
# --------------------------------------------------------------------------

SONGS = [
    dict(id="riffle-001", title="Glass Harbor", display_name="Mira Sol", handle="mirasol",
         upvotes=1284, bpm=76, key=2, mode="major", prog=[0, 4, 5, 3], bars=9, tail=2.5,
         chords="pad", pad_table="warm", sevenths=True, lead_table="hollow",
         drums="halftime", bass="sustain", arp=(5, 9, 2), arp_table="sine",
         seed=1001, hue=0.55, style="rings"),
    dict(id="riffle-002", title="Neon Orchard", display_name="Tavi Reyes", handle="tavireyes",
         upvotes=942, bpm=112, key=9, mode="minor", prog=[0, 5, 2, 6], bars=16, tail=1.5,
         chords="pluck", pad_table="bright", lead_table="square",
         drums="backbeat", bass="pulse8", seed=2002, hue=0.88, style="sun"),
    dict(id="riffle-003", title="Paper Satellites", display_name="Juno Hale", handle="junohale",
         upvotes=2310, bpm=128, key=4, mode="minor", prog=[0, 6, 5, 6], bars=8, tail=0.8,
         chords="pad", pad_table="square", lead_table="hollow", lead_start=1,
         drums="four", bass="pulse8", arp=(0, 8, 1), arp_table="bright",
         kick_tune=1.08, seed=3003, hue=0.62, style="orbits"),
    dict(id="riffle-004", title="Lanterns in Static", display_name="The Quiet Engines",
         handle="quietengines", upvotes=517, bpm=96, key=5, mode="major", prog=[0, 5, 3, 4],
         bars=14, tail=2.0, chords="pad", pad_table="organ", lead_table="flute",
         drums="broken", bass="root_fifth", arp=(6, 10, 2), arp_table="hollow",
         seed=4004, hue=0.08, style="stripes"),
    dict(id="riffle-005", title="Saltwater Psalm", display_name="Odessa Vale", handle="odessavale",
         upvotes=1876, bpm=72, key=0, mode="minor", prog=[0, 3, 5, 4], bars=6, tail=2.5,
         chords="pluck", pad_table="warm", strum=[(0, 8), (8, 4), (12, 4)], sevenths=True,
         lead_table="flute", lead_start=1, drums="halftime", bass="sustain", swing=0.35,
         seed=5005, hue=0.45, style="waves"),
    dict(id="riffle-006", title="Midnight Tramline", display_name="Kofi Lune", handle="kofilune",
         upvotes=763, bpm=140, key=7, mode="minor", prog=[0, 5, 3, 4], bars=14, tail=1.0,
         chords="pluck", pad_table="bright", strum=[(0, 3), (3, 3), (6, 4), (10, 2), (12, 4)],
         lead_table="square", drums="broken", bass="syncop", arp=(8, 13, 2), arp_table="sine",
         kick_tune=0.95, seed=6006, hue=0.74, style="dots"),
]

FIXTURE_CLIPS = [
    # (file, seconds, spec)
    ("short-1.mp3", 2.0, dict(bpm=120, key=10, mode="major", prog=[0, 4], bars=2, tail=0,
                              chords="pluck", pad_table="bright", lead_table="hollow",
                              drums="backbeat", bass="pulse8", seed=9001, full=True)),
    ("short-2.mp3", 3.0, dict(bpm=100, key=3, mode="minor", prog=[0, 5], bars=2, tail=0,
                              chords="pad", pad_table="warm", lead_table="square",
                              drums="halftime", bass="root_fifth", seed=9002, full=True)),
    ("mono-22k.mp3", 2.0, dict(bpm=110, key=1, mode="major", prog=[0, 3], bars=2, tail=0,
                               chords="pluck", pad_table="warm", lead_table="flute",
                               drums="four", bass="sustain", seed=9003, full=True)),
]


M4A_CLIPS = [
    # (file, seconds, spec): AAC-LC in MP4 like iTunes previews, made with the ffmpeg CLI.
    ("short.m4a", 4.0, dict(bpm=124, key=5, mode="minor", prog=[0, 3, 5, 4], bars=2, tail=0,
                            chords="pluck", pad_table="bright", lead_table="hollow",
                            drums="backbeat", bass="pulse8", seed=9101, full=True)),
    ("mono-22k.m4a", 2.0, dict(bpm=96, key=8, mode="major", prog=[0, 4], bars=2, tail=0,
                               chords="pad", pad_table="warm", lead_table="flute",
                               drums="four", bass="sustain", seed=9102, full=True)),
]


def make_m4a_fixtures(tmp):
    """The M4A fixtures: render, mix down, encode with ffmpeg; then the cut-off copy."""
    for name, secs, spec in M4A_CLIPS:
        _NOTE_CACHE.clear()
        mono = name.startswith("mono")
        mix = render_song(spec, total_samples=int(round(secs * SR)))
        wav = mix_down(mix, tmp, 0.01, 0.15, mono)
        encode_m4a(wav, os.path.join(FIXTURE_DIR, name), bitrate=64 if mono else 128)
        if name == "short.m4a":
            encode_m4a(wav, os.path.join(FIXTURE_DIR, "moov-last.m4a"), faststart=False)
    # The moov-last file cut in half: audio without the table that says where it is.
    with open(os.path.join(FIXTURE_DIR, "moov-last.m4a"), "rb") as f:
        whole = f.read()
    with open(os.path.join(FIXTURE_DIR, "truncated.m4a"), "wb") as f:
        f.write(whole[:len(whole) // 2])


def main():
    t0 = time.monotonic()
    audio_dir = os.path.join(CATALOG_DIR, "audio")
    cover_dir = os.path.join(CATALOG_DIR, "covers")
    for d in (audio_dir, cover_dir, FIXTURE_DIR):
        os.makedirs(d, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="riffle-catalog-")
    try:
        entries = []
        for s in SONGS:
            _NOTE_CACHE.clear()
            mix = render_song(s)
            mp3 = os.path.join(audio_dir, s["id"] + ".mp3")
            encode(mix, mp3, tmp, s["title"], s["display_name"])
            with open(os.path.join(cover_dir, s["id"] + ".png"), "wb") as f:
                f.write(cover(320, s["hue"], s["style"]))
            dur = round(mp3_duration(mp3), 3)
            entries.append({
                "id": s["id"],
                "title": s["title"],
                "handle": s["handle"],
                "display_name": s["display_name"],
                "image_url": "covers/%s.png" % s["id"],
                "is_liked": False,
                "upvote_count": s["upvotes"],
                "audio_url": "audio/%s.mp3" % s["id"],
                "duration": dur,
            })
            print("%-10s %-20s %3d bpm  %6.3f s  (%.1f s elapsed)"
                  % (s["id"], s["title"], s["bpm"], dur, time.monotonic() - t0))
        with open(os.path.join(CATALOG_DIR, "songs.json"), "w") as f:
            json.dump({"songs": entries}, f, indent=2, ensure_ascii=False)
            f.write("\n")

        for name, secs, spec in FIXTURE_CLIPS:
            _NOTE_CACHE.clear()
            n = int(round(secs * SR))
            mix = render_song(spec, total_samples=n)
            encode(mix, os.path.join(FIXTURE_DIR, name), tmp, None, None,
                   fade_in=0.01, fade_out=0.15, mono22k=name.startswith("mono"),
                   bitrate=64 if name.startswith("mono") else 128)
        make_m4a_fixtures(tmp)
        rng = random.Random(424242)
        junk = bytes(rng.randrange(255) for _ in range(20 * 1024))  # never 0xFF
        with open(os.path.join(FIXTURE_DIR, "corrupt.mp3"), "wb") as f:
            f.write(junk)
        with open(os.path.join(FIXTURE_DIR, "cover.png"), "wb") as f:
            f.write(cover(64, 0.3, "rings"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("done in %.1f s" % (time.monotonic() - t0))


if __name__ == "__main__":
    main()
