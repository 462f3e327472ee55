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
