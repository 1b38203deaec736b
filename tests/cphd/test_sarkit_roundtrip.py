#!/usr/bin/env python3
# test_sarkit_roundtrip.py: checks Echoform's CPHD files against sarkit, the NGA reference library.
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   test_sarkit_roundtrip.py roundtrip DEMO   Echoform writes, sarkit reads; sarkit writes, Echoform reads
#                                             (DEMO is the cphd-write-demo executable)
#   test_sarkit_roundtrip.py focus            sarkit writes point targets, `$EF_CLI form` focuses them
#
# Exit 0 on success, 1 on a failed check, 77 (skipped) when sarkit or numpy or the CLI is missing.
"""Cross-checks between Echoform's CPHD reader/writer and sarkit."""

import json
import os
import pathlib
import subprocess
import sys
import tempfile

SKIP = 77

try:
    import numpy as np
    import lxml.etree
    import sarkit.cphd as skcphd
    import sarkit.wgs84
except ImportError as exc:  # pragma: no cover - depends on the machine
    print(f"sarkit is not installed (pip install sarkit==1.8.1): {exc}; skipping")
    sys.exit(SKIP)

C = 299792458.0
NS = "http://api.nsgreg.nga.mil/schema/cphd/1.0.1"

# The scene: a circular spotlight pass at 10 km slant range, 30 degrees grazing, 3 degrees of azimuth.
SRP_LLH = np.array([40.25, 20.5, 310.0])
FC, BW = 9.6e9, 600e6
N_PULSES, N_SAMPLES = 128, 256
# Far enough apart (60+ resolution cells) that one target's sidelobes cannot move another's peak by a mm.
TARGETS_ENU = np.array([[0.0, 0.0, 0.0], [15.0, -10.0, 0.0], [-12.0, 14.0, 0.0]])


def num(x):
    """A float as XML text that reads back to the same double."""
    return repr(float(x))


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def enu_basis(llh):
    """Rows east, north, up at a geodetic point, in ECF."""
    return np.stack([sarkit.wgs84.east(llh), sarkit.wgs84.north(llh), sarkit.wgs84.up(llh)])


def ecf_to_enu(ecf, srp_ecf, srp_llh):
    return (np.asarray(ecf) - srp_ecf) @ enu_basis(srp_llh).T


def enu_to_ecf(enu, srp_ecf, srp_llh):
    return srp_ecf + np.asarray(enu) @ enu_basis(srp_llh)


# ---------------------------------------------------------------------------------------------------
# Echoform writes, sarkit reads


def read_dump(base):
    base = str(base)
    info = json.loads(pathlib.Path(base + ".json").read_text())
    samples = np.fromfile(base + ".samples", dtype=np.complex64)
    samples = samples.reshape(info["n_pulses"], info["n_samples"])
    pulses = np.fromfile(base + ".pulses", dtype=np.float64).reshape(info["n_pulses"], 13)
    return info, samples, pulses


def check_echoform_file(path):
    """sarkit reads an Echoform file; its samples and PVPs must match what Echoform was given."""
    info, want, pulses = read_dump(path.with_suffix(".src"))
    with path.open("rb") as f, skcphd.Reader(f) as r:
        xml = r.metadata.xmltree
        ch = xml.findtext("{*}Data/{*}Channel/{*}Identifier")
        sig, pvp = r.read_channel(ch)
    fmt = xml.findtext("{*}Data/{*}SignalArrayFormat")
    if xml.findtext("{*}Global/{*}SGN") != "-1":
        fail(f"{path.name}: SGN is not -1")
    if sig.shape != want.shape:
        fail(f"{path.name}: signal shape {sig.shape}, expected {want.shape}")

    if fmt == "CF8":
        got = sig.astype(np.complex64)
        if not np.array_equal(got.view(np.uint32), want.view(np.uint32)):
            fail(f"{path.name}: CF8 samples differ bit for bit")
        worst_q = 0.0
    else:
        amp = pvp["AmpSF"][:, None]
        got = (sig["real"] * amp) + 1j * (sig["imag"] * amp)
        err = np.maximum(np.abs(got.real - want.real), np.abs(got.imag - want.imag)) / amp
        worst_q = float(err.max())
        if worst_q > 0.5 + 1e-4:
            fail(f"{path.name}: {fmt} quantisation error {worst_q:.4f} steps (> 0.5)")

    srp_ecf = np.array(info["srp_ecf"])
    srp_llh = sarkit.wgs84.cartesian_to_geodetic(srp_ecf)
    tx = ecf_to_enu(pvp["TxPos"], srp_ecf, srp_llh)
    rcv = ecf_to_enu(pvp["RcvPos"], srp_ecf, srp_llh)
    pos_err = max(np.abs(tx - pulses[:, 1:4]).max(), np.abs(rcv - pulses[:, 4:7]).max())
    if pos_err > 1e-6:
        fail(f"{path.name}: positions differ by {pos_err:.3g} m after ECF -> ENU")
    for name, col in (("TxTime", 0), ("SC0", 8), ("SCSS", 9), ("FX1", 10), ("FX2", 11)):
        if not np.array_equal(pvp[name], pulses[:, col]):
            fail(f"{path.name}: PVP {name} differs from what was written")
    if not np.all(pvp["SRPPos"] == srp_ecf):
        fail(f"{path.name}: SRPPos is not the SRP")
    # The two-way time to the SRP, and a sensible speed (the test track flies at 100 m/s).
    two_way = (np.linalg.norm(pvp["TxPos"] - srp_ecf, axis=1) + np.linalg.norm(pvp["RcvPos"] - srp_ecf, axis=1)) / C
    if np.abs(pvp["RcvTime"] - pvp["TxTime"] - two_way).max() > 1e-12:
        fail(f"{path.name}: RcvTime is not TxTime plus the two-way time to the SRP")
    # Velocities agree with the track's own differences.
    speed = np.linalg.norm(pvp["TxVel"], axis=1)
    track = np.median(np.linalg.norm(np.diff(pulses[:, 1:4], axis=0), axis=1) / np.diff(pulses[:, 0]))
    if np.abs(speed - track).max() > 0.01 * track:
        fail(f"{path.name}: TxVel magnitude {speed.min():.3f}..{speed.max():.3f} m/s, the track moves at {track:.3f}")
    print(f"ok   sarkit reads {path.name}: {fmt}, positions within {pos_err:.2g} m, "
          f"quantisation {worst_q:.3f} steps")


# ---------------------------------------------------------------------------------------------------
# sarkit writes (point targets), Echoform reads


def pass_geometry():
    srp_ecf = sarkit.wgs84.geodetic_to_cartesian(SRP_LLH)
    slant, graze, sweep = 10e3, np.deg2rad(30.0), np.deg2rad(3.0)
    az = np.deg2rad(-60.0) + np.linspace(-sweep / 2, sweep / 2, N_PULSES)
    ground = slant * np.cos(graze)
    tx_enu = np.stack([ground * np.cos(az), ground * np.sin(az), np.full_like(az, slant * np.sin(graze))], axis=1)
    duration = ground * sweep / 100.0
    t = np.linspace(0.0, duration, N_PULSES)
    vel_enu = np.stack([-np.sin(az), np.cos(az), np.zeros_like(az)], axis=1) * (ground * sweep / duration)
    tx = enu_to_ecf(tx_enu, srp_ecf, SRP_LLH)
    vel = vel_enu @ enu_basis(SRP_LLH)
    return srp_ecf, tx, vel, t, tx_enu


def point_target_signal(srp_ecf, tx, freqs):
    """d(p, k) = sum over targets of exp(-j 2 pi f dTOA): SGN = -1."""
    tgt = enu_to_ecf(TARGETS_ENU, srp_ecf, SRP_LLH)
    r_srp = np.linalg.norm(tx - srp_ecf, axis=1)
    sig = np.zeros((len(tx), len(freqs)), dtype=np.complex128)
    for x in tgt:
        dtoa = 2.0 * (np.linalg.norm(tx - x, axis=1) - r_srp) / C
        sig += np.exp(-2j * np.pi * freqs[None, :] * dtoa[:, None])
    return sig


def build_xml(fmt, sgn, n_bytes_pvp, pvp_fields, srp_ecf, t, fx1, fx2, toa1, toa2):
    e = sarkit.wgs84.east(SRP_LLH)
    n = sarkit.wgs84.north(SRP_LLH)
    half = 60.0
    corners = []
    for i, (x, y) in enumerate([(-half, -half), (-half, half), (half, half), (half, -half)]):
        llh = sarkit.wgs84.cartesian_to_geodetic(srp_ecf + x * e + y * n)
        corners.append(f'<IACP index="{i + 1}"><Lat>{num(llh[0])}</Lat><Lon>{num(llh[1])}</Lon></IACP>')
    pvp_xml = "".join(
        f"<{name}><Offset>{off}</Offset><Size>{size}</Size><Format>{form}</Format></{name}>"
        for name, off, size, form in pvp_fields
    )

    def xyz(v):
        return f"<X>{num(v[0])}</X><Y>{num(v[1])}</Y><Z>{num(v[2])}</Z>"

    return f"""<CPHD xmlns="{NS}">
<CollectionID><CollectorName>sarkit test</CollectorName><CoreName>points</CoreName>
<CollectType>MONOSTATIC</CollectType><RadarMode><ModeType>SPOTLIGHT</ModeType></RadarMode>
<Classification>UNCLASSIFIED</Classification><ReleaseInfo>UNRESTRICTED</ReleaseInfo></CollectionID>
<Global><DomainType>FX</DomainType><SGN>{sgn}</SGN>
<Timeline><CollectionStart>2024-01-01T00:00:00Z</CollectionStart><TxTime1>{num(t[0])}</TxTime1><TxTime2>{num(t[-1])}</TxTime2></Timeline>
<FxBand><FxMin>{num(fx1)}</FxMin><FxMax>{num(fx2)}</FxMax></FxBand>
<TOASwath><TOAMin>{num(toa1)}</TOAMin><TOAMax>{num(toa2)}</TOAMax></TOASwath></Global>
<SceneCoordinates><EarthModel>WGS_84</EarthModel>
<IARP><ECF>{xyz(srp_ecf)}</ECF><LLH><Lat>{num(SRP_LLH[0])}</Lat><Lon>{num(SRP_LLH[1])}</Lon><HAE>{num(SRP_LLH[2])}</HAE></LLH></IARP>
<ReferenceSurface><Planar><uIAX>{xyz(e)}</uIAX><uIAY>{xyz(n)}</uIAY></Planar></ReferenceSurface>
<ImageArea><X1Y1><X>{-half}</X><Y>{-half}</Y></X1Y1><X2Y2><X>{half}</X><Y>{half}</Y></X2Y2></ImageArea>
<ImageAreaCornerPoints>{"".join(corners)}</ImageAreaCornerPoints>
<ImageGrid><IARPLocation><Line>479.5</Line><Sample>479.5</Sample></IARPLocation>
<IAXExtent><LineSpacing>0.125</LineSpacing><FirstLine>0</FirstLine><NumLines>960</NumLines></IAXExtent>
<IAYExtent><SampleSpacing>0.125</SampleSpacing><FirstSample>0</FirstSample><NumSamples>960</NumSamples></IAYExtent></ImageGrid>
</SceneCoordinates>
<Data><SignalArrayFormat>{fmt}</SignalArrayFormat><NumBytesPVP>{n_bytes_pvp}</NumBytesPVP><NumCPHDChannels>1</NumCPHDChannels>
<Channel><Identifier>HH</Identifier><NumVectors>{N_PULSES}</NumVectors><NumSamples>{N_SAMPLES}</NumSamples>
<SignalArrayByteOffset>0</SignalArrayByteOffset><PVPArrayByteOffset>0</PVPArrayByteOffset></Channel>
<NumSupportArrays>0</NumSupportArrays></Data>
<Channel><RefChId>HH</RefChId><FXFixedCPHD>true</FXFixedCPHD><TOAFixedCPHD>true</TOAFixedCPHD><SRPFixedCPHD>true</SRPFixedCPHD>
<Parameters><Identifier>HH</Identifier><RefVectorIndex>{N_PULSES // 2}</RefVectorIndex><FXFixed>true</FXFixed>
<TOAFixed>true</TOAFixed><SRPFixed>true</SRPFixed><Polarization><TxPol>H</TxPol><RcvPol>H</RcvPol></Polarization>
<FxC>{num((fx1 + fx2) / 2)}</FxC><FxBW>{num(fx2 - fx1)}</FxBW><TOASaved>{num(toa2 - toa1)}</TOASaved>
<DwellTimes><CODId>cod</CODId><DwellId>dwell</DwellId></DwellTimes></Parameters></Channel>
<PVP>{pvp_xml}</PVP>
<Dwell><NumCODTimes>1</NumCODTimes><CODTime><Identifier>cod</Identifier>
<CODTimePoly order1="0" order2="0"><Coef exponent1="0" exponent2="0">COD</Coef></CODTimePoly></CODTime>
<NumDwellTimes>1</NumDwellTimes><DwellTime><Identifier>dwell</Identifier>
<DwellTimePoly order1="0" order2="0"><Coef exponent1="0" exponent2="0">DWELL</Coef></DwellTimePoly></DwellTime></Dwell>
</CPHD>"""


def write_sarkit_file(path, fmt, sgn=-1):
    """Writes a CPHD of three point targets with sarkit; returns what Echoform should read back."""
    srp_ecf, tx, vel, t, tx_enu = pass_geometry()
    df = BW / N_SAMPLES
    f0 = FC - BW / 2
    freqs = f0 + df * np.arange(N_SAMPLES)
    fx1, fx2 = freqs[0], freqs[-1]
    toa1, toa2 = -0.4 / df, 0.4 / df
    sig = point_target_signal(srp_ecf, tx, freqs)
    if sgn > 0:
        sig = np.conj(sig)

    names = [("TxTime", 1), ("TxPos", 3), ("TxVel", 3), ("RcvTime", 1), ("RcvPos", 3), ("RcvVel", 3), ("SRPPos", 3)]
    if fmt != "CF8":
        names.append(("AmpSF", 1))
    names += [("aFDOP", 1), ("aFRR1", 1), ("aFRR2", 1), ("FX1", 1), ("FX2", 1), ("TOA1", 1), ("TOA2", 1),
              ("TDTropoSRP", 1), ("SC0", 1), ("SCSS", 1), ("SIGNAL", 1)]
    fields, off = [], 0
    for name, size in names:
        form = "I8" if name == "SIGNAL" else ("X=F8;Y=F8;Z=F8;" if size == 3 else "F8")
        fields.append((name, off, size, form))
        off += size

    two_way = 2.0 * np.linalg.norm(tx - srp_ecf, axis=1) / C
    tref = t + 0.5 * two_way
    xml = build_xml(fmt, "+1" if sgn > 0 else "-1", 8 * off, fields, srp_ecf, t, fx1, fx2, toa1, toa2)
    xml = xml.replace(">COD<", f">{num((tref[0] + tref[-1]) / 2)}<").replace(">DWELL<", f">{num(tref[-1] - tref[0])}<")
    tree = lxml.etree.ElementTree(lxml.etree.fromstring(xml))

    pvp = np.zeros(N_PULSES, dtype=skcphd.get_pvp_dtype(tree))
    pvp["TxTime"] = t
    pvp["TxPos"] = tx
    pvp["TxVel"] = vel
    pvp["RcvTime"] = t + two_way
    pvp["RcvPos"] = tx
    pvp["RcvVel"] = vel
    pvp["SRPPos"] = srp_ecf
    rdot = np.sum(vel * (tx - srp_ecf), axis=1) / np.linalg.norm(tx - srp_ecf, axis=1)
    pvp["aFDOP"] = -2.0 / C * rdot
    pvp["FX1"], pvp["FX2"] = fx1, fx2
    pvp["TOA1"], pvp["TOA2"] = toa1, toa2
    pvp["SC0"], pvp["SCSS"] = f0, df
    pvp["SIGNAL"] = 1

    if fmt == "CF8":
        data = sig.astype(np.complex64)
        expect = data
    else:
        full = 32767 if fmt == "CI4" else 127
        itype = np.int16 if fmt == "CI4" else np.int8
        peak = np.maximum(np.abs(sig.real), np.abs(sig.imag)).max(axis=1)
        amp = peak / full
        pvp["AmpSF"] = amp
        data = np.zeros(sig.shape, dtype=skcphd.binary_format_string_to_dtype(fmt))
        data["real"] = np.round(sig.real / amp[:, None]).astype(itype)
        data["imag"] = np.round(sig.imag / amp[:, None]).astype(itype)
        a32 = amp.astype(np.float32)[:, None]
        expect = (a32 * data["real"].astype(np.float32)) + 1j * (a32 * data["imag"].astype(np.float32))
        expect = expect.astype(np.complex64)
    if sgn > 0:
        expect = np.conj(expect)

    refgeom = skcphd.compute_reference_geometry(tree, pvp)
    tree.getroot().find(f"{{{NS}}}Dwell").addnext(refgeom)
    meta = skcphd.Metadata(xmltree=tree)
    with open(path, "wb") as f, skcphd.Writer(f, meta) as w:
        w.write_signal("HH", data)
        w.write_pvp("HH", pvp)
    return {"samples": expect, "tx_enu": tx_enu, "t": t, "sc0": f0, "scss": df, "srp_ecf": srp_ecf}


def cphdcheck_errors(path):
    from sarkit.verification import CphdConsistency

    with open(path, "rb") as f:
        con = CphdConsistency.from_file(f, thorough=True)
        con.check()
    return [k for k, v in con.failures().items() if any(d["severity"] == "Error" and not d["passed"]
                                                          for d in v["details"])]


def check_sarkit_file(demo, path, expect, tmp):
    errors = cphdcheck_errors(path)
    if errors:
        fail(f"the sarkit-written {path.name} itself fails cphdcheck: {errors}")
    out = tmp / (path.stem + ".echoform")
    res = subprocess.run([demo, "read", str(path), str(out)], capture_output=True, text=True)
    if res.returncode != 0:
        fail(f"Echoform cannot read {path.name}: {res.stderr.strip()}")
    info, got, pulses = read_dump(out)
    if info["n_pulses"] != N_PULSES or info["n_samples"] != N_SAMPLES or info["domain"].lower() != "fx":
        fail(f"{path.name}: Echoform reads {info}")
    want = expect["samples"]
    if not np.array_equal(got.view(np.uint32), want.view(np.uint32)):
        diff = np.abs(got - want).max()
        fail(f"{path.name}: Echoform's samples differ from sarkit's (max {diff:.3g})")
    pos_err = max(np.abs(pulses[:, 1:4] - expect["tx_enu"]).max(), np.abs(pulses[:, 4:7] - expect["tx_enu"]).max())
    if pos_err > 1e-6:
        fail(f"{path.name}: Echoform's positions are {pos_err:.3g} m off")
    r0 = np.linalg.norm(expect["tx_enu"], axis=1)
    if np.abs(pulses[:, 7] - r0).max() > 1e-6:
        fail(f"{path.name}: Echoform's r0 differs by {np.abs(pulses[:, 7] - r0).max():.3g} m")
    if not (np.all(pulses[:, 0] == expect["t"]) and np.all(pulses[:, 8] == expect["sc0"])
            and np.all(pulses[:, 9] == expect["scss"])):
        fail(f"{path.name}: Echoform's times or frequencies differ")
    if abs(info["fc"] - FC) > 1e-3 * (BW / N_SAMPLES) + BW / N_SAMPLES:
        fail(f"{path.name}: Echoform's fc {info['fc']} is not the band centre")
    # The sign convention, end to end: Echoform's samples, positions and r0 put through the exact matched
    # filter sum d(p,k) exp(+j 4 pi f_k dR_p(x) / c) add up coherently at each target and not beside it.
    freqs = pulses[:, 8:9] + pulses[:, 9:10] * np.arange(N_SAMPLES)[None, :]
    for x in TARGETS_ENU:
        for offset, expect_focus in ((0.0, True), (0.5, False)):
            pt = x + np.array([offset, 0.0, 0.0])
            dr = np.linalg.norm(pulses[:, 1:4] - pt, axis=1) - pulses[:, 7]
            mf = np.abs(np.sum(got * np.exp(4j * np.pi * freqs * dr[:, None] / C))) / got.size
            if expect_focus and mf < 0.9:
                fail(f"{path.name}: the target at {x} does not focus (matched filter {mf:.3f} of 1)")
            if not expect_focus and mf > 0.3:
                fail(f"{path.name}: 0.5 m beside the target at {x} the matched filter is still {mf:.3f}")
    print(f"ok   Echoform reads sarkit's {path.name}: samples identical, positions within {pos_err:.2g} m")


def roundtrip(demo):
    with tempfile.TemporaryDirectory(prefix="cphd-sarkit-") as d:
        tmp = pathlib.Path(d)
        res = subprocess.run([demo, "write", str(tmp)], capture_output=True, text=True)
        if res.returncode != 0:
            fail(f"cphd-write-demo failed: {res.stderr.strip()}")
        for line in res.stdout.split():
            check_echoform_file(pathlib.Path(line))
        for fmt, sgn in (("CF8", -1), ("CI4", -1), ("CI2", -1), ("CF8", +1)):
            path = tmp / f"points-{fmt.lower()}{'-sgnplus' if sgn > 0 else ''}.cphd"
            expect = write_sarkit_file(path, fmt, sgn)
            check_sarkit_file(demo, path, expect, tmp)
    return 0


# ---------------------------------------------------------------------------------------------------
# Focusing with the CLI


def focus():
    cli = os.environ.get("EF_CLI")
    if not cli or not os.path.exists(cli):
        print("EF_CLI is not set to echoform-cli; skipping the focus test")
        return SKIP
    probe = subprocess.run([cli, "form", "--help"], capture_output=True, text=True)
    if probe.returncode != 0:
        print(f"`{cli} form` is not available ({probe.stderr.strip()[:200]}); skipping the focus test")
        return SKIP

    res = C / (2 * BW)  # range resolution; cross-range is about the same for this pass
    spacing = res / 20
    half = 0.6
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="cphd-focus-") as d:
        tmp = pathlib.Path(d)
        for fmt in ("CF8", "CI4"):
            path = tmp / f"points-{fmt.lower()}.cphd"
            write_sarkit_file(path, fmt)
            for i, target in enumerate(TARGETS_ENU):
                out = tmp / f"{fmt}-{i}.npy"
                roi = f"{target[0] - half},{target[1] - half},{target[0] + half},{target[1] + half}"
                # A finely sampled range profile: at the default zero-padding, linear interpolation of the
                # profile alone moves peaks by several mm, and this test measures the file's geometry.
                cmd = [cli, "form", str(path), f"--roi={roi}", f"--spacing={spacing}", "--algo", "bp",
                       "--precision", "fp64", "--upsample", "32", "-o", str(out)]
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 0:
                    fail(f"{' '.join(cmd)} failed: {r.stderr.strip()[:400]}")
                img = np.load(out)
                meta = json.loads(out.with_suffix(".json").read_text())
                peak = locate_peak(np.abs(img).astype(np.float64), meta)
                err = float(np.linalg.norm(peak[:2] - target[:2]))
                worst = max(worst, err)
                print(f"     {fmt} target {i} at {target[:2]}: peak at {peak[:2]}, {err * 1e3:.2f} mm off")
                # README.md: point targets land within resolution/100 of where they are.
                if err > res / 100:
                    fail(f"{fmt} target {i} focused {err * 1e3:.2f} mm from where it is (limit {res / 100 * 1e3:.1f} mm)")
    print(f"ok   every target within {worst * 1e3:.2f} mm (resolution/100 = {res / 100 * 1e3:.1f} mm)")
    return 0


def locate_peak(mag, meta):
    """Peak position in the scene frame: pixel (row r, column c) sits at origin + c*spacing*u + r*spacing*v."""
    r, c = np.unravel_index(np.argmax(mag), mag.shape)

    def refine(m0, m1, m2):
        den = m0 - 2 * m1 + m2
        return 0.0 if den == 0 else 0.5 * (m0 - m2) / den

    dr = refine(mag[r - 1, c], mag[r, c], mag[r + 1, c]) if 0 < r < mag.shape[0] - 1 else 0.0
    dc = refine(mag[r, c - 1], mag[r, c], mag[r, c + 1]) if 0 < c < mag.shape[1] - 1 else 0.0
    origin, u, v = (np.asarray(meta[k], dtype=float) for k in ("origin", "u", "v"))
    s = float(meta["spacing"])
    return origin + (c + dc) * s * u + (r + dr) * s * v


def main(argv):
    if len(argv) >= 3 and argv[1] == "roundtrip":
        return roundtrip(argv[2])
    if len(argv) >= 2 and argv[1] == "focus":
        return focus()
    print(__doc__)
    print("usage: test_sarkit_roundtrip.py roundtrip DEMO | focus")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
