//! A map's pictures and sounds as files (`twcodec::assets`, `twcodec extract`): every embedded
//! image comes out as a PNG whose pixels are the map's, as RGBA8; every embedded sound as its
//! Opus data; external ones are listed; file names are safe and unique.

mod common;

use std::collections::HashSet;
use std::process::Command;

use common::*;
use twcodec::assets::{self, AssetKind, Only};
use twcodec::Map;

/// Decodes a PNG into (width, height, RGBA8 bytes).
fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
    let mut reader = decoder.read_info().unwrap();
    let mut out = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut out).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    out.truncate(info.buffer_size());
    (info.width, info.height, out)
}

/// On every corpus map, the extracted files hold the map's pixels and sounds exactly.
#[test]
fn extracted_files_hold_the_maps_pixels_and_sounds() {
    let Some(paths) = corpus_maps() else { return };
    let (mut images, mut sounds, mut external) = (0, 0, 0);
    for path in paths {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let map = Map::load(&path).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let listed = assets::extract(&map, dir.path(), Only::All).unwrap();
        assert_eq!(
            listed.len(),
            map.images().len() + map.sounds().len(),
            "{name}"
        );
        let mut files = HashSet::new();
        for asset in &listed {
            let Some(file) = &asset.file else {
                external += 1;
                continue;
            };
            assert!(files.insert(file.to_lowercase()), "{name}: {file} twice");
            assert!(
                !file.contains(['/', '\\']) && !file.starts_with('.'),
                "{file}"
            );
            let bytes = std::fs::read(dir.path().join(file)).unwrap();
            match asset.kind {
                AssetKind::Image => {
                    images += 1;
                    let image = &map.images()[asset.index];
                    let rgba = image.rgba8(&map).unwrap();
                    let (width, height, pixels) = decode_png(&bytes);
                    assert_eq!((width as usize, height as usize), (rgba.width, rgba.height));
                    assert!(pixels == *rgba.bytes, "{name}: {file}");
                    assert!(file.ends_with(".png"));
                }
                AssetKind::Sound => {
                    sounds += 1;
                    let sound = &map.sounds()[asset.index];
                    assert_eq!(bytes, *sound.data(&map).unwrap(), "{name}: {file}");
                    assert!(bytes.starts_with(b"OggS"), "{name}: {file} is Ogg");
                    assert!(file.ends_with(".opus"));
                }
            }
        }
        // Nothing else is written.
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            files.len(),
            "{name}"
        );
    }
    // What the corpus holds: the embedded (RGBA and RGB) images and embedded sounds its
    // MANIFEST.md counts, and the two images of the Teeworlds 0.3 map.
    eprintln!("{images} images, {sounds} sounds, {external} external");
    assert_eq!((images, sounds), (171, 9));
}

/// `--only` takes one kind; the list names external assets without a file.
#[test]
fn extract_takes_one_kind_and_lists_external_ones() {
    let map = Map::parse(&twcodec::sample::datafile()).unwrap();
    let all = assets::list(&map);
    let kinds: Vec<_> = all.iter().map(|a| (a.kind, a.file.clone())).collect();
    assert_eq!(
        kinds,
        [
            (AssetKind::Image, None),
            (AssetKind::Image, Some("checker.png".to_string())),
            (AssetKind::Sound, Some("chime.opus".to_string())),
        ]
    );
    assert!(assets::list_only(&map, Only::Images)
        .iter()
        .all(|a| a.kind == AssetKind::Image));
    assert!(assets::list_only(&map, Only::Sounds)
        .iter()
        .all(|a| a.kind == AssetKind::Sound));
    let error = assets::encode(&map, &all[0]).unwrap_err();
    assert!(error.to_string().contains("external"), "{error}");

    let dir = tempfile::tempdir().unwrap();
    let sample = dir.path().join("sample.map");
    std::fs::write(&sample, twcodec::sample::datafile()).unwrap();
    let out = dir.path().join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_twcodec"))
        .args([
            "extract",
            sample.to_str().unwrap(),
            out.to_str().unwrap(),
            "--only",
            "images",
        ])
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout).replace(out.to_str().unwrap(), "OUT");
    insta_settings().bind(|| insta::assert_snapshot!("cli_extract_sample", text));
    let written: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(written, ["checker.png"]);
}

/// Encodes one PNG of a given color type and depth from raw samples.
fn png_of(
    width: u32,
    height: u32,
    color: png::ColorType,
    depth: png::BitDepth,
    palette: Option<Vec<u8>>,
    data: &[u8],
) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(color);
    encoder.set_depth(depth);
    if let Some(palette) = palette {
        encoder.set_palette(palette);
    }
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(data).unwrap();
    writer.finish().unwrap();
    bytes
}

/// Pictures of every PNG color type come out as the same RGBA8 pixels.
#[test]
fn pngs_of_every_color_type_read_as_rgba8() {
    use png::{BitDepth as D, ColorType as C};
    let limits = twcodec::Limits::DEFAULT;
    // Two pixels: dark red at half alpha, white opaque, in each form the type can hold.
    let cases: Vec<(&str, Vec<u8>, [u8; 8])> = vec![
        (
            "rgba8",
            png_of(
                2,
                1,
                C::Rgba,
                D::Eight,
                None,
                &[100, 0, 0, 128, 255, 255, 255, 255],
            ),
            [100, 0, 0, 128, 255, 255, 255, 255],
        ),
        (
            "rgb8",
            png_of(2, 1, C::Rgb, D::Eight, None, &[100, 0, 0, 255, 255, 255]),
            [100, 0, 0, 255, 255, 255, 255, 255],
        ),
        (
            "gray8",
            png_of(2, 1, C::Grayscale, D::Eight, None, &[100, 255]),
            [100, 100, 100, 255, 255, 255, 255, 255],
        ),
        (
            "gray-alpha8",
            png_of(
                2,
                1,
                C::GrayscaleAlpha,
                D::Eight,
                None,
                &[100, 128, 255, 255],
            ),
            [100, 100, 100, 128, 255, 255, 255, 255],
        ),
        (
            "gray1",
            png_of(2, 1, C::Grayscale, D::One, None, &[0b0100_0000]),
            [0, 0, 0, 255, 255, 255, 255, 255],
        ),
        (
            "palette8",
            png_of(
                2,
                1,
                C::Indexed,
                D::Eight,
                Some(vec![100, 0, 0, 255, 255, 255]),
                &[0, 1],
            ),
            [100, 0, 0, 255, 255, 255, 255, 255],
        ),
        (
            "rgba16",
            png_of(
                2,
                1,
                C::Rgba,
                D::Sixteen,
                None,
                &[
                    100, 7, 0, 0, 0, 0, 128, 9, 255, 255, 255, 255, 255, 255, 255, 255,
                ],
            ),
            [100, 0, 0, 128, 255, 255, 255, 255],
        ),
    ];
    for (name, bytes, want) in cases {
        let picture = assets::decode_png(&bytes, limits).unwrap();
        assert_eq!((picture.width, picture.height), (2, 1), "{name}");
        assert_eq!(picture.rgba, want, "{name}");
        assert!(!picture.fits_tile_grid());
    }
    // Not a PNG, or cut short: an error naming PNG, never a panic.
    let good = png_of(2, 1, C::Rgb, D::Eight, None, &[1, 2, 3, 4, 5, 6]);
    for bad in [&b"not a png"[..], &good[..good.len() / 2], &[]] {
        let error = assets::decode_png(bad, limits).unwrap_err();
        assert!(error.to_string().starts_with("PNG: "), "{error}");
    }
    // Bigger than a data item may be.
    let small = twcodec::Limits::DEFAULT.with_max_data_size(7);
    let error = assets::decode_png(&good, small).unwrap_err();
    assert!(
        error.to_string().contains("Limits::max_data_size"),
        "{error}"
    );
}

/// Extracted, then added back with `twcodec add-image`, a picture keeps its pixels; a picture
/// that cannot be a tileset gets the editor's warning.
#[test]
fn add_image_round_trips_extracted_pictures() {
    let Some(bytes) = corpus_map("ddnet_Castle_Echos.map") else {
        return;
    };
    let map = Map::parse(&bytes).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let listed = assets::extract(&map, dir.path(), Only::Images).unwrap();
    let sample = dir.path().join("sample.map");
    std::fs::write(&sample, twcodec::sample::datafile()).unwrap();
    let mut checked = 0;
    for asset in listed.iter().filter(|a| a.file.is_some()).take(4) {
        let png = dir.path().join(asset.file.as_ref().unwrap());
        let out = dir.path().join("out.map");
        let run = Command::new(env!("CARGO_BIN_EXE_twcodec"))
            .args(["add-image", sample.to_str().unwrap(), png.to_str().unwrap()])
            .args(["--name", "added", "-o", out.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let edited = Map::load(&out).unwrap();
        let added = edited
            .images()
            .iter()
            .find(|i| i.name(&edited).as_deref() == Some("added"));
        let added = added.unwrap().rgba8(&edited).unwrap();
        let original = map.images()[asset.index].rgba8(&map).unwrap();
        assert_eq!(
            (added.width, added.height),
            (original.width, original.height)
        );
        assert!(added.bytes == original.bytes, "{:?}", asset.name);
        let warned = String::from_utf8_lossy(&run.stderr).contains("not a multiple of 16");
        assert_eq!(
            warned,
            original.width % 16 != 0 || original.height % 16 != 0
        );
        checked += 1;
    }
    assert_eq!(checked, 4);
    // A 10x10 picture: the warning.
    let odd = dir.path().join("odd.png");
    std::fs::write(
        &odd,
        png_of(
            10,
            10,
            png::ColorType::Grayscale,
            png::BitDepth::Eight,
            None,
            &[0; 100],
        ),
    )
    .unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_twcodec"))
        .args([
            "add-image",
            sample.to_str().unwrap(),
            odd.to_str().unwrap(),
            "-o",
        ])
        .arg(dir.path().join("odd.map"))
        .output()
        .unwrap();
    assert!(run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("10x10 is not a multiple of 16"), "{stderr}");
    assert!(String::from_utf8_lossy(&run.stdout).contains("added image #2 \"odd\" (10x10)"));
}
