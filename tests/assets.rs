//! A map's pictures and sounds as files (`twcodec_tools::assets`, `twcodec extract`): every embedded
//! image comes out as a PNG whose pixels are the map's, as RGBA8; every embedded sound as its
//! Opus data; external ones are listed; file names are safe and unique.

mod common;

use std::collections::HashSet;
use std::path::Path;
use std::process::Command;

use common::*;
use twcodec::schema::map::image::ImageFormat;
use twcodec::Map;
use twcodec_tools::assets::{self, AssetKind, Only};

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
        let map = Map::open(&path).unwrap();
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
    let map = Map::parse(&twcodec_testkit::sample::datafile()).unwrap();
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
    std::fs::write(&sample, twcodec_testkit::sample::datafile()).unwrap();
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
    std::fs::write(&sample, twcodec_testkit::sample::datafile()).unwrap();
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
        let edited = Map::open(&out).unwrap();
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

/// Runs twcodec with `args` (and `env`, `TWCODEC_MAPRES` removed unless given).
fn run(args: &[&std::ffi::OsStr], env: Option<&Path>) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_twcodec"));
    command.args(args).env_remove("TWCODEC_MAPRES");
    if let Some(dir) = env {
        command.env("TWCODEC_MAPRES", dir);
    }
    command.output().unwrap()
}

/// `run` with string arguments.
macro_rules! twcodec {
    ($env:expr; $($arg:expr),* $(,)?) => {
        run(&[$(std::ffi::OsStr::new(&$arg)),*], $env)
    };
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A `width` x `height` RGBA PNG of a gradient, and its pixels.
fn gradient(width: u32, height: u32) -> (Vec<u8>, Vec<u8>) {
    let rgba: Vec<u8> = (0..height)
        .flat_map(|y| (0..width).flat_map(move |x| [x as u8 * 7, y as u8 * 13, 90, 200]))
        .collect();
    let png = png_of(
        width,
        height,
        png::ColorType::Rgba,
        png::BitDepth::Eight,
        None,
        &rgba,
    );
    (png, rgba)
}

/// On every corpus map, replacing each embedded image with its own extracted PNG changes
/// nothing: the map writes back byte for byte. One map goes through `twcodec replace-image`
/// by name.
#[test]
fn replacing_images_with_their_extracted_pngs_keeps_the_bytes() {
    let Some(paths) = corpus_maps() else { return };
    let mut replaced = 0;
    for path in paths {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let original = std::fs::read(&path).unwrap();
        let mut map = Map::parse(&original).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let listed = assets::extract(&map, dir.path(), Only::Images).unwrap();
        let refs: Vec<_> = map.refs::<twcodec::map::Image>().collect();
        for asset in listed.iter().filter(|a| a.file.is_some()) {
            let png = dir.path().join(asset.file.as_ref().unwrap());
            let picture = assets::read_png(&png, map.limits()).unwrap();
            let image = refs[asset.index];
            let changed = map
                .replace_image(image, picture.width, picture.height, picture.rgba)
                .unwrap();
            assert!(!changed, "{name}: {png:?}");
            replaced += 1;
        }
        assert!(map.to_bytes().unwrap() == original, "{name}");
    }
    assert_eq!(replaced, 171);

    let Some(dir) = corpus_dir() else { return };
    let castle = dir.join("maps/ddnet_Castle_Echos.map");
    let work = tempfile::tempdir().unwrap();
    let map = Map::open(&castle).unwrap();
    assets::extract(&map, work.path(), Only::Images).unwrap();
    let out = work.path().join("out.map");
    let png = work.path().join("Halloweentileset.png");
    let output = twcodec!(None; "replace-image", castle, "Halloweentileset", png, "-o", out);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        format!(
            "image #0 \"Halloweentileset\" holds these pixels already: unchanged\nwrote {}\n",
            out.display()
        )
    );
    assert!(std::fs::read(&out).unwrap() == std::fs::read(&castle).unwrap());
}

/// A generated picture replaces an embedded image and an external one: the pixels are the
/// picture's, the name, place and layer references stay; a tile layer's image that cannot be
/// a tileset, or changes size, gets a warning naming the layer.
#[test]
fn replace_image_puts_new_pixels_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let sample = dir.path().join("sample.map");
    std::fs::write(&sample, twcodec_testkit::sample::datafile()).unwrap();
    let before = Map::open(&sample).unwrap();
    let layer_images: Vec<i32> = before
        .layers()
        .iter()
        .map(|l| l.image(&before).raw())
        .collect();

    // The embedded 4x4 checker, drawn by quads only: 32x16, no warning.
    let (png, rgba) = gradient(32, 16);
    let png_path = dir.path().join("gradient.png");
    std::fs::write(&png_path, &png).unwrap();
    let out = dir.path().join("out.map");
    let output = twcodec!(None; "replace-image", sample, "checker", png_path, "-o", out);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stderr), "");
    assert!(text(&output.stdout).starts_with("image #1 \"checker\": replaced (4x4 -> 32x16)\n"));
    let map = Map::open(&out).unwrap();
    assert_eq!(map.images().len(), 2);
    let image = &map.images()[1];
    assert_eq!(image.name(&map).as_deref(), Some("checker"));
    let pixels = image.rgba8(&map).unwrap();
    assert_eq!((pixels.width, pixels.height), (32, 16));
    assert!(*pixels.bytes == *rgba);
    let after: Vec<i32> = map.layers().iter().map(|l| l.image(&map).raw()).collect();
    assert_eq!(after, layer_images);
    // The old pixels' data item was the image's own: replaced in place, none added.
    assert_eq!(map.data_count(), before.data_count());

    // The external grass_main, drawn by the tiles layer "Ground": embedded now; 10x10 gets the
    // tileset warning.
    let (odd, odd_rgba) = gradient(10, 10);
    let odd_path = dir.path().join("odd.png");
    std::fs::write(&odd_path, &odd).unwrap();
    let output = twcodec!(None; "replace-image", out, "grass_main", odd_path, "-o", out);
    assert!(output.status.success());
    assert_eq!(
        text(&output.stderr),
        format!(
            "twcodec: warning: {}: image \"grass_main\" is drawn by tile layer #3 \"Ground\": 10x10 \
             is not a multiple of 16 on each side, so it cannot be a tileset of 16x16 tiles \
             (DDNet's editor unsets such an image from tile layers)\n",
            odd_path.display()
        )
    );
    assert!(text(&output.stdout)
        .starts_with("image #0 \"grass_main\": was external, now embedded (10x10)\n"));
    let map = Map::open(&out).unwrap();
    let image = &map.images()[0];
    assert!(!image.is_external());
    assert_eq!(image.name(&map).as_deref(), Some("grass_main"));
    assert!(*image.rgba8(&map).unwrap().bytes == *odd_rgba);
    let after: Vec<i32> = map.layers().iter().map(|l| l.image(&map).raw()).collect();
    assert_eq!(after, layer_images);

    // Embedded now, so a new size is worth a word.
    let output = twcodec!(None; "replace-image", out, "grass_main", png_path, "-o", out);
    assert!(text(&output.stderr).contains(
        "image \"grass_main\" is drawn by tile layer #3 \"Ground\": it was 10x10 and is 32x16 now"
    ));

    // A Teeworlds 0.7 map's version-2 image gets the RGBA format.
    if let Some(corpus) = corpus_dir() {
        let ctf5 = corpus.join("maps/tw07_ctf5.map");
        let name = Map::open(&ctf5).unwrap().images()[0]
            .name(&Map::open(&ctf5).unwrap())
            .unwrap();
        let output = twcodec!(None; "replace-image", ctf5, name, png_path, "-o", out);
        assert!(output.status.success(), "{}", text(&output.stderr));
        let map = Map::open(&out).unwrap();
        let item = map.images()[0].item();
        assert_eq!((item.version, item.format), (2, Some(ImageFormat::RGBA)));
        assert!(*map.images()[0].rgba8(&map).unwrap().bytes == *rgba);
    }
}

/// A name the map does not have: exit 1, the map's path and its image names, at most twelve.
#[test]
fn replace_image_names_the_images_a_map_has() {
    let dir = tempfile::tempdir().unwrap();
    let sample = dir.path().join("sample.map");
    std::fs::write(&sample, twcodec_testkit::sample::datafile()).unwrap();
    let (png, _) = gradient(16, 16);
    let png_path = dir.path().join("p.png");
    std::fs::write(&png_path, png).unwrap();
    let out = dir.path().join("out.map");
    let output = twcodec!(None; "replace-image", sample, "grass", png_path, "-o", out);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        format!(
            "twcodec: error: {}: the map has no image named \"grass\"; its 2 images are \
             \"grass_main\", \"checker\"\n",
            sample.display()
        )
    );
    assert!(!out.exists());

    let mut map = Map::parse(&twcodec_testkit::sample::datafile()).unwrap();
    for i in 0..13 {
        map.add_external_image(&format!("extra{i}")).unwrap();
    }
    let error = assets::find_image(&map, "nope").unwrap_err();
    assert_eq!(
        error.to_string(),
        "the map has no image named \"nope\"; its 15 images include \"grass_main\", \
         \"checker\", \"extra0\", \"extra1\", \"extra2\", \"extra3\", \"extra4\", \"extra5\", \
         \"extra6\", \"extra7\", \"extra8\", \"extra9\" and 3 more"
    );
    let error = assets::find_sound(&map, "nope").unwrap_err();
    assert_eq!(
        error.to_string(),
        "the map has no sound named \"nope\"; its one sound is \"chime\""
    );
}

/// `embed` on every corpus map with external images: each one whose picture the DDNet mapres
/// holds is embedded with that picture's pixels, under its name, at its place; the others are
/// named in a warning and stay external.
#[test]
fn embed_takes_pictures_from_the_mapres() {
    let Some(corpus) = corpus_dir() else { return };
    let mapres = corpus.join("mapres/ddnet");
    let (mut embedded, mut left) = (0, 0);
    for path in corpus_maps().unwrap() {
        let mut map = Map::open(&path).unwrap();
        let names: Vec<_> = map.images().iter().map(|i| i.name(&map)).collect();
        let external: Vec<bool> = map.images().iter().map(|i| i.is_external()).collect();
        if !external.contains(&true) {
            continue;
        }
        let embedding = assets::embed(&mut map, &mapres).unwrap();
        let map = Map::parse(&map.to_bytes().unwrap()).unwrap();
        let after: Vec<_> = map.images().iter().map(|i| i.name(&map)).collect();
        assert_eq!(after, names, "{path:?}");
        for (index, image) in map.images().iter().enumerate() {
            let file = names[index]
                .as_deref()
                .map(|n| mapres.join(format!("{n}.png")));
            let in_mapres = file.as_ref().is_some_and(|f| f.is_file());
            if !external[index] {
                continue;
            }
            assert_eq!(image.is_external(), !in_mapres, "{path:?} #{index}");
            if in_mapres {
                embedded += 1;
                let picture = assets::read_png(file.as_ref().unwrap(), map.limits()).unwrap();
                let pixels = image.rgba8(&map).unwrap();
                assert_eq!(
                    (pixels.width, pixels.height),
                    (picture.width as usize, picture.height as usize)
                );
                assert!(*pixels.bytes == *picture.rgba, "{path:?} #{index}");
            } else {
                left += 1;
                let listed = embedding
                    .left_external
                    .iter()
                    .find(|l| l.image.index() == index)
                    .unwrap();
                assert!(listed.reason.starts_with("no "), "{}", listed.reason);
            }
        }
    }
    eprintln!("{embedded} embedded, {left} left external");
    assert!(embedded > 100 && left > 0, "{embedded} {left}");
}

/// Names that are no plain file names stay external; `--strict` fails and writes nothing;
/// the mapres folder comes from `$TWCODEC_MAPRES` when `--mapres` is not given.
#[test]
fn embed_keeps_names_inside_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let mapres = dir.path().join("mapres");
    std::fs::create_dir(&mapres).unwrap();
    let (png, rgba) = gradient(16, 16);
    std::fs::write(mapres.join("grass_main.png"), &png).unwrap();
    // A picture outside the folder that `../` would reach.
    std::fs::write(dir.path().join("secret.png"), &png).unwrap();
    let mut map = Map::parse(&twcodec_testkit::sample::datafile()).unwrap();
    for name in ["../secret", "a/b", "..", "", "c:\\d", "missing"] {
        map.add_external_image(name).unwrap();
    }
    let input = dir.path().join("in.map");
    map.save(&input).unwrap();

    let embedding = assets::embed(&mut map, &mapres).unwrap();
    assert_eq!(embedding.embedded.len(), 1);
    let reasons: Vec<_> = (embedding.left_external.iter())
        .map(|l| {
            (
                l.name.clone().unwrap(),
                l.reason.replace(&*mapres.to_string_lossy(), "DIR"),
            )
        })
        .collect();
    let plain = "its name is not a plain file name".to_string();
    assert_eq!(
        reasons,
        [
            ("../secret".to_string(), plain.clone()),
            ("a/b".to_string(), plain.clone()),
            ("..".to_string(), plain.clone()),
            ("".to_string(), plain.clone()),
            ("c:\\d".to_string(), plain),
            ("missing".to_string(), "no DIR/missing.png".to_string()),
        ]
    );
    assert!(*map.images()[0].rgba8(&map).unwrap().bytes == *rgba);
    let error = embedding.require_all().unwrap_err().to_string();
    assert!(
        error.starts_with("6 of 7 external images stay external: #2 \"../secret\", #3 \"a/b\""),
        "{error}"
    );

    let out = dir.path().join("out.map");
    let output = twcodec!(Some(&mapres); "embed", input, "--strict", "-o", out);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("stays external: no "));
    assert!(!out.exists());
    let output = twcodec!(Some(&mapres); "embed", input, "-o", out);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout).replace(&*mapres.to_string_lossy(), "DIR");
    assert_eq!(
        stdout,
        format!(
            "image #0 \"grass_main\": embedded DIR/grass_main.png (16x16)\nembedded 1 of 7 \
             external images; wrote {}\n",
            out.display()
        )
    );
    let stderr = text(&output.stderr);
    assert_eq!(stderr.lines().count(), 6, "{stderr}");
    assert!(stderr.contains(&format!(
        "twcodec: warning: {}: image #2 \"../secret\" stays external: its name is not a plain \
         file name",
        input.display()
    )));
    // No folder: a usage error.
    let output = twcodec!(None; "embed", input, "-o", out);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        text(&output.stderr),
        "twcodec: error: no folder of pictures: give --mapres DIR or set $TWCODEC_MAPRES\n"
    );
    let output = twcodec!(None; "embed", input, "--mapres", dir.path().join("nope"), "-o", out);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("nope: cannot read the mapres directory"));
}

/// `resave --to 0.7 --embed`: a DDNet map with external images comes out in 0.7 form with
/// DDNet's pictures in it (not the redrawn 0.7 ones of the same names).
#[test]
fn resave_to_07_embeds_ddnet_pictures() {
    let Some(corpus) = corpus_dir() else { return };
    let input = corpus.join("maps/ddnet_theme_winter_night.map");
    let ddnet = corpus.join("mapres/ddnet");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.map");
    let output = twcodec!(Some(&ddnet); "resave", input, out, "--to", "0.7", "--embed");
    assert!(output.status.success(), "{}", text(&output.stderr));
    // The conversion's notes describe the map once embedded: no image stays external.
    let (note, warning) = (
        format!("twcodec: note: {}: ", input.display()),
        format!("twcodec: warning: {}: ", input.display()),
    );
    assert_eq!(
        text(&output.stderr),
        format!(
            "{note}changed the game layer to tilemap version 4 (skip-compressed tiles, as \
             Teeworlds 0.7 writes them)\n\
             {warning}the game layer #0 \"Game\" has no spawn (ids 192 to 194): players cannot \
             spawn on a Teeworlds 0.7 server\n\
             {note}changed 5 images to version 2 with a pixel format (RGBA)\n\
             {note}kept DDNet's group extensions of 5 groups (3 with a parallax zoom other than \
             100%): Teeworlds 0.7 does not zoom parallax\n\
             twcodec: embedded 5 of 5 external images from {}\n",
            ddnet.display()
        )
    );
    let map = Map::open(&out).unwrap();
    assert_eq!(map.form(), twcodec::MapForm::Teeworlds07);
    let mut redrawn = 0;
    for image in map.images() {
        let name = image.name(&map).unwrap();
        assert!(!image.is_external(), "{name}");
        assert_eq!(image.item().format, Some(ImageFormat::RGBA));
        let limits = map.limits();
        let picture = assets::read_png(&ddnet.join(format!("{name}.png")), limits).unwrap();
        assert!(*image.rgba8(&map).unwrap().bytes == *picture.rgba, "{name}");
        let seven = corpus.join(format!("mapres/teeworlds07/{name}.png"));
        if seven.is_file() {
            let seven = assets::read_png(&seven, limits).unwrap();
            redrawn += usize::from(seven.rgba != picture.rgba);
        }
    }
    assert!(redrawn > 0, "the 0.7 pictures differ from DDNet's");

    // Without --embed, a note on what a 0.7 client will draw.
    let output = twcodec!(None; "resave", input, out, "--to", "0.7");
    assert!(text(&output.stderr).contains(&format!(
        "{note}kept 5 external images (\"moon\", \"snow\", \"winter_doodads\", \"winter_main\", \
         \"winter_mountains3\") external: Teeworlds 0.7 clients draw 0.7's own pictures of those \
         names, not DDNet's; embed DDNet's pictures to keep the map's look\n"
    )));
    // --embed needs --to, and a folder.
    let output = twcodec!(None; "resave", input, out, "--embed");
    assert_eq!(output.status.code(), Some(2));
    let output = twcodec!(None; "resave", input, out, "--to", "0.7", "--embed");
    assert_eq!(output.status.code(), Some(2));
}

/// Every corpus sound goes into a map with `add-sound` and replaces the sample's with
/// `replace-sound`, and `extract` gives back the very file.
#[test]
fn sounds_round_trip_through_add_and_replace() {
    let Some(paths) = corpus_maps() else { return };
    let dir = tempfile::tempdir().unwrap();
    let sample = dir.path().join("sample.map");
    std::fs::write(&sample, twcodec_testkit::sample::datafile()).unwrap();
    let mut checked = 0;
    for path in paths {
        let map = Map::open(&path).unwrap();
        let sounds = dir.path().join("sounds");
        let listed = assets::extract(&map, &sounds, Only::Sounds).unwrap();
        for asset in listed.iter().filter(|a| a.file.is_some()) {
            let opus = sounds.join(asset.file.as_ref().unwrap());
            let bytes = std::fs::read(&opus).unwrap();
            let head = assets::check_opus(&bytes).unwrap();
            assert!((1..=2).contains(&head.channels) && head.pages > 2);
            let added = dir.path().join("added.map");
            let output = twcodec!(None; "add-sound", sample, opus, "--name", "new", "-o", added);
            assert!(output.status.success(), "{}", text(&output.stderr));
            let replaced = dir.path().join("replaced.map");
            let output = twcodec!(None; "replace-sound", added, "chime", opus, "-o", replaced);
            assert!(output.status.success(), "{}", text(&output.stderr));
            let back = dir.path().join("back");
            let map = Map::open(&replaced).unwrap();
            let files = assets::extract(&map, &back, Only::Sounds).unwrap();
            let names: Vec<_> = files.iter().map(|f| f.file.clone().unwrap()).collect();
            assert_eq!(names, ["chime.opus", "new.opus"]);
            for file in names {
                assert!(std::fs::read(back.join(file)).unwrap() == bytes);
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 9);
}

/// The CRC of an Ogg page, for the generated files below.
fn ogg_crc(page: &[u8]) -> u32 {
    let mut crc = 0u32;
    for &byte in page {
        crc ^= u32::from(byte) << 24;
        for _ in 0..8 {
            crc = if crc & 0x8000_0000 != 0 {
                (crc << 1) ^ 0x04c1_1db7
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// An Ogg page of `header_type` holding `packets` (each under 255 bytes), checksum right.
fn ogg_page(header_type: u8, sequence: u32, packets: &[&[u8]]) -> Vec<u8> {
    let mut page = b"OggS".to_vec();
    page.extend([0, header_type]);
    page.extend(0u64.to_le_bytes()); // granule position
    page.extend(7u32.to_le_bytes()); // serial number
    page.extend(sequence.to_le_bytes());
    page.extend([0; 4]); // checksum, set below
    page.push(packets.len() as u8);
    page.extend(packets.iter().map(|p| p.len() as u8));
    for packet in packets {
        page.extend_from_slice(packet);
    }
    let crc = ogg_crc(&page);
    page[22..26].copy_from_slice(&crc.to_le_bytes());
    page
}

/// A small well-formed Ogg Opus file: the ID header, the comment header, one audio packet.
fn opus_file(id_header: &[u8]) -> Vec<u8> {
    let mut file = ogg_page(0x02, 0, &[id_header]);
    file.extend(ogg_page(0, 1, &[b"OpusTags\x04\0\0\0test\0\0\0\0"]));
    file.extend(ogg_page(0x04, 2, &[&[0xfc, 0xff, 0xfe]]));
    file
}

/// What `check_opus` and `add-sound` say of files that are not Ogg Opus or are cut short.
#[test]
fn opus_check_says_what_it_found() {
    let head: &[u8] = b"OpusHead\x01\x02\x38\x01\x80\xbb\0\0\0\0\0";
    let good = opus_file(head);
    let found = assets::check_opus(&good).unwrap();
    assert_eq!(
        found,
        assets::OpusHead {
            channels: 2,
            pre_skip: 312,
            input_sample_rate: 48000,
            pages: 3
        }
    );
    let damaged = {
        let mut file = good.clone();
        *file.last_mut().unwrap() ^= 1;
        file
    };
    let no_eos = {
        let mut file = ogg_page(0x02, 0, &[head]);
        file.extend(ogg_page(0, 1, &[b"OpusTags\0\0\0\0\0\0\0\0"]));
        file
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("text", b"hello, world".to_vec()),
        (
            "png",
            png_of(
                1,
                1,
                png::ColorType::Grayscale,
                png::BitDepth::Eight,
                None,
                &[0],
            ),
        ),
        ("cut in the first header", good[..20].to_vec()),
        ("cut in the first page", good[..40].to_vec()),
        ("cut in the last page", good[..good.len() - 1].to_vec()),
        ("cut after the first page", good[..47].to_vec()),
        ("cut at a page boundary", no_eos),
        ("damaged", damaged),
        (
            "vorbis",
            opus_file(b"\x01vorbis\0\0\0\0\x02\x44\xac\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01"),
        ),
        ("flac", opus_file(b"\x7fFLAC\x01\0\0\x01fLaC\0\0\0\x22")),
        ("short OpusHead", opus_file(b"OpusHead\x01\x02")),
        ("two packets on the first page", {
            let mut file = ogg_page(0x02, 0, &[head, b"OpusTags"]);
            file.extend(good[47..].iter());
            file
        }),
        (
            "no channels",
            opus_file(b"OpusHead\x01\0\x38\x01\x80\xbb\0\0\0\0\0"),
        ),
        (
            "six channels",
            opus_file(
                b"OpusHead\x01\x06\x38\x01\x80\xbb\0\0\0\0\x01\x04\x02\0\x04\x01\x02\x03\x05",
            ),
        ),
        (
            "version 16",
            opus_file(b"OpusHead\x10\x02\x38\x01\x80\xbb\0\0\0\0\0"),
        ),
        ("page version 1", {
            let mut file = good.clone();
            file[4] = 1;
            file
        }),
        ("not the start of a stream", {
            let mut file = ogg_page(0, 0, &[head]);
            file.extend(good[47..].iter());
            file
        }),
        ("no OpusTags", {
            let mut file = ogg_page(0x02, 0, &[head]);
            file.extend(ogg_page(0x04, 1, &[b"audio"]));
            file
        }),
    ];
    let mut report = String::new();
    for (name, bytes) in &cases {
        let error = assets::check_opus(bytes).unwrap_err();
        report.push_str(&format!("{name}: {error}\n"));
    }
    insta_settings().bind(|| insta::assert_snapshot!("opus_errors", report));

    // On the command line, the error names the file.
    let dir = tempfile::tempdir().unwrap();
    let sample = dir.path().join("sample.map");
    std::fs::write(&sample, twcodec_testkit::sample::datafile()).unwrap();
    let vorbis = dir.path().join("song.ogg");
    std::fs::write(&vorbis, &cases[9].1).unwrap();
    let out = dir.path().join("out.map");
    let output = twcodec!(None; "add-sound", sample, vorbis, "-o", out);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        format!(
            "twcodec: error: {}: not an Ogg Opus file: the first packet begins \"\\x01vorbis\\x00\", not \
             \"OpusHead\": an Ogg Vorbis file; the game plays Opus only (at byte 0x1c)\n",
            vorbis.display()
        )
    );
    assert!(!out.exists());
    // A generated file goes in, named after the file.
    let song = dir.path().join("song.opus");
    std::fs::write(&song, &good).unwrap();
    let output = twcodec!(None; "add-sound", sample, song, "-o", out);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        format!(
            "added sound #1 \"song\" ({} bytes of Opus, 2 channels)\nwrote {}\n",
            good.len(),
            out.display()
        )
    );
    let output = twcodec!(None; "replace-sound", sample, "bell", song, "-o", out);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr)
        .contains("the map has no sound named \"bell\"; its one sound is \"chime\""));
}

/// `embed` never makes a map its reader would refuse: pictures that would take the map's data
/// past `Limits::max_total_data` stay external, with the reason; the map written loads under
/// the same limits.
#[test]
fn embed_keeps_the_map_within_the_readers_limits() {
    let dir = tempfile::tempdir().unwrap();
    let mapres = dir.path().join("mapres");
    std::fs::create_dir(&mapres).unwrap();
    let mut map = twcodec_testkit::sample::map().unwrap();
    // Four external images of 256x256 pictures: 256 KiB of pixels each.
    let picture = assets::Picture {
        width: 256,
        height: 256,
        rgba: vec![200; 256 * 256 * 4],
    };
    for name in ["big1", "big2", "big3", "big4"] {
        map.add_external_image(name).unwrap();
        std::fs::write(
            mapres.join(format!("{name}.png")),
            picture.to_png().unwrap(),
        )
        .unwrap();
    }
    // A reader that takes maps of at most 800 KiB of data: three pictures fit, not four.
    let limits = twcodec::Limits::default().with_max_total_data(800 << 10);
    let bytes = map.to_bytes().unwrap();
    let datafile = twcodec::Datafile::parse_with(&bytes, limits).unwrap();
    let mut map = Map::from_datafile(&datafile).unwrap();
    let embedding = assets::embed(&mut map, &mapres).unwrap();
    let embedded: Vec<&str> = embedding.embedded.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(embedded, ["big1", "big2", "big3"]);
    let left: Vec<_> = (embedding.left_external.iter())
        .filter(|l| l.name.as_deref() == Some("big4"))
        .collect();
    assert_eq!(left.len(), 1);
    assert!(
        left[0]
            .reason
            .contains("more than the 819200 a map may hold (Limits::max_total_data)"),
        "{}",
        left[0].reason
    );
    twcodec::Datafile::parse_with(&map.to_bytes().unwrap(), limits).unwrap();
}
