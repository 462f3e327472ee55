//! The lossless core of the map directory form (docs/mapdir.md): stored streams keyed by
//! decoded content.

mod common;

use twcodec::map::Group;
use twcodec::{Datafile, DatafileWriter};
use twcodec_tools::mapdir::Streams;

/// Rebuilds `datafile` from its items and decoded data through `streams`, with data item
/// `skip` left out; how many streams were reused.
fn rebuild(datafile: &Datafile, streams: &Streams, skip: Option<usize>) -> (Vec<u8>, usize) {
    let mut writer: DatafileWriter = streams.layout().writer();
    for item in datafile.items() {
        writer.add_item(item.type_id(), item.id(), item.data.clone());
    }
    let mut reused = 0;
    for index in (0..datafile.data_count()).filter(|&i| Some(i) != skip) {
        let data = datafile.data(index).unwrap().into_owned();
        reused += usize::from(streams.add_data(&mut writer, index, data));
    }
    (writer.to_vec().unwrap(), reused)
}

#[test]
fn every_corpus_map_rebuilds_from_decoded_data_byte_for_byte() {
    let Some(maps) = common::corpus_maps() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for path in &maps {
        let original = std::fs::read(path).unwrap();
        let datafile = Datafile::parse(&original).unwrap();
        let streams = Streams::of(&datafile).unwrap();
        let (bytes, _) = rebuild(&datafile, &streams, None);
        assert!(bytes == original, "{}", path.display());
        // Through the files of a directory: the same.
        let out = dir.path().join(path.file_stem().unwrap());
        streams.save(&out).unwrap();
        let loaded = Streams::load(&out).unwrap();
        assert_eq!(loaded.layout(), streams.layout(), "{}", path.display());
        let (bytes, _) = rebuild(&datafile, &loaded, None);
        assert!(bytes == original, "{} through files", path.display());
    }
}

#[test]
fn streams_follow_content_not_position() {
    let original = twcodec_testkit::sample::datafile();
    let datafile = Datafile::parse(&original).unwrap();
    let streams = Streams::of(&datafile).unwrap();
    let count = datafile.data_count();
    // Data item 0 left out: every later one is one place earlier and still finds its stream.
    let (bytes, reused) = rebuild(&datafile, &streams, Some(0));
    assert_eq!(reused, count - 1);
    let rebuilt = Datafile::parse(&bytes).unwrap();
    for index in 1..count {
        assert_eq!(rebuilt.stored_data(index - 1), datafile.stored_data(index));
    }
    // New content is compressed anew.
    let mut writer = streams.layout().writer();
    assert!(!streams.add_data(&mut writer, 0, b"not in the map".to_vec()));
}

#[test]
fn a_tampered_layout_or_stream_is_not_trusted() {
    let original = twcodec_testkit::sample::datafile();
    let datafile = Datafile::parse(&original).unwrap();
    let streams = Streams::of(&datafile).unwrap();
    let dir = tempfile::tempdir().unwrap();
    streams.save(dir.path()).unwrap();
    let layout_path = dir.path().join(".twcodec/layout.toml");
    let text = std::fs::read_to_string(&layout_path).unwrap();
    // The first data item claims other content: its stream is dropped, the others are kept.
    let first = &streams.layout().data[0];
    let lying = text.replacen(&first.content, &"0".repeat(64), 1);
    std::fs::write(&layout_path, &lying).unwrap();
    let loaded = Streams::load(dir.path()).unwrap();
    assert_eq!(loaded.layout().data[0].stream, None);
    assert!(loaded.layout().data[1..].iter().all(|e| e.stream.is_some()));
    let (bytes, reused) = rebuild(&datafile, &loaded, None);
    assert_eq!(reused, datafile.data_count() - 1);
    // Compressed anew, the data still decodes to the same map content.
    let rebuilt = Datafile::parse(&bytes).unwrap();
    assert_eq!(rebuilt.data(0).unwrap(), datafile.data(0).unwrap());
    // A syntax error names the file and the line.
    std::fs::write(&layout_path, "version = 4\nmagic = \n").unwrap();
    let error = Streams::load(dir.path()).unwrap_err().to_string();
    assert!(error.contains("layout.toml:2"), "{error}");
}

#[test]
fn painting_one_tile_changes_one_line() {
    use twcodec_tools::mapdir::tiles::write;
    let map = twcodec_testkit::sample::map().unwrap();
    let (_, game) = map.game_layer().unwrap();
    let mut grid = game.grid().unwrap().clone();
    let before = write(&grid, "game");
    grid.get_mut(5, 3).unwrap().id = 9;
    let after = write(&grid, "game");
    let changed: Vec<(&str, &str)> = (before.lines().zip(after.lines()))
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(before.lines().count(), after.lines().count());
}

#[test]
fn every_corpus_map_unpacks_and_packs_byte_for_byte() {
    let Some(maps) = common::corpus_maps() else {
        return;
    };
    use rayon::prelude::*;
    // In parallel: unpacking writes every tile of the corpus as text and reads it back.
    let counts: Vec<(usize, usize)> = maps
        .par_iter()
        .map(|path| {
            let original = std::fs::read(path).unwrap();
            let dir = tempfile::tempdir().unwrap();
            let unpacked = twcodec_tools::mapdir::unpack(&original, dir.path())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let packed = twcodec_tools::mapdir::pack(dir.path())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(packed == original, "{}", path.display());
            (unpacked.raw, unpacked.data)
        })
        .collect();
    let raw: usize = counts.iter().map(|c| c.0).sum();
    let data: usize = counts.iter().map(|c| c.1).sum();
    eprintln!("{raw} of {data} corpus data items unpacked as raw bytes");
    // Almost every data item has a readable form.
    assert!(raw * 50 < data, "{raw} of {data} data items as raw bytes");
    // Almost every data item has a readable form.
    assert!(raw * 50 < data, "{raw} of {data} data items as raw bytes");
}

/// The sample unpacked into a new directory.
fn unpacked_sample() -> (tempfile::TempDir, Vec<u8>) {
    let original = twcodec_testkit::sample::datafile();
    let dir = tempfile::tempdir().unwrap();
    twcodec_tools::mapdir::unpack(&original, dir.path()).unwrap();
    (dir, original)
}

/// Every file under `dir`, at any depth, sorted by path.
fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        for entry in std::fs::read_dir(&path).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The first file (by path) under `dir/sub`, at any depth, whose name ends with `suffix`.
fn file_ending(dir: &std::path::Path, sub: &str, suffix: &str) -> std::path::PathBuf {
    let found = files_under(&dir.join(sub))
        .into_iter()
        .find(|p| p.to_string_lossy().ends_with(suffix));
    found.unwrap_or_else(|| panic!("no {sub}/**/*{suffix}"))
}

/// Packs `dir` and loads the result strictly.
fn pack_strict(dir: &std::path::Path) -> twcodec::Map {
    let bytes = twcodec_tools::mapdir::pack(dir).unwrap();
    twcodec::Map::parse_with(&bytes, twcodec::map::LoadOptions::default().strict())
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn edits_in_the_directory_show_in_the_map() {
    let original = twcodec_testkit::sample::map().unwrap();
    // A setting changed.
    let (dir, _) = unpacked_sample();
    let settings = file_ending(dir.path(), "data", ".settings");
    let text = std::fs::read_to_string(&settings).unwrap();
    std::fs::write(&settings, text.replace("sv_team 1", "sv_team 0")).unwrap();
    let map = pack_strict(dir.path());
    let info = map.info().unwrap();
    let new: Vec<String> = info.settings(&map).unwrap().to_vec();
    assert_eq!(new[0], "sv_team 0");
    assert_eq!(
        new[1..],
        original
            .info()
            .unwrap()
            .settings(&original)
            .unwrap()
            .to_vec()[1..]
    );

    // A tile painted in the game layer: exactly that tile changes.
    let (dir, _) = unpacked_sample();
    let (_, game) = original.game_layer().unwrap();
    let game_data = game.item().data;
    let tiles = dir.path().join(format!("data/{game_data:03}.tiles"));
    let text = std::fs::read_to_string(&tiles).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut row: Vec<String> = lines[4].split(' ').map(String::from).collect();
    row[5] = "9".into();
    lines[4] = row.join(" ");
    std::fs::write(&tiles, lines.join("\n") + "\n").unwrap();
    let map = pack_strict(dir.path());
    let (_, painted) = map.game_layer().unwrap();
    let (before, after) = (game.grid().unwrap(), painted.grid().unwrap());
    let changed: Vec<(usize, usize)> = (0..before.height())
        .flat_map(|y| (0..before.width()).map(move |x| (x, y)))
        .filter(|&(x, y)| before.get(x, y) != after.get(x, y))
        .collect();
    assert_eq!(changed, vec![(5, 3)]);
    assert_eq!(after.get(5, 3).unwrap().id, 9);

    // A picture replaced: its pixels are the new PNG's.
    let (dir, _) = unpacked_sample();
    let png = file_ending(dir.path(), "data", ".png");
    let picture =
        twcodec_tools::assets::decode_png(&std::fs::read(&png).unwrap(), Default::default())
            .unwrap();
    let inverted = twcodec_tools::assets::Picture {
        rgba: picture.rgba.iter().map(|b| 255 - b).collect(),
        ..picture.clone()
    };
    std::fs::write(&png, inverted.to_png().unwrap()).unwrap();
    let map = pack_strict(dir.path());
    let image = map.images().iter().find(|i| !i.is_external()).unwrap();
    assert_eq!(image.rgba8(&map).unwrap().bytes, inverted.rgba);
}

#[test]
fn bad_directories_name_the_file_and_line() {
    let error = |dir: &std::path::Path| twcodec_tools::mapdir::pack(dir).unwrap_err().to_string();
    // A TOML syntax error in an item.
    let (dir, _) = unpacked_sample();
    let item = file_ending(dir.path(), "items", "image-01-checker.toml");
    std::fs::write(&item, "kind = \"image\"\nwidth = \n").unwrap();
    let message = error(dir.path());
    assert!(message.contains("image-01-checker.toml:2"), "{message}");
    // A row of tiles too long.
    let (dir, _) = unpacked_sample();
    let tiles = file_ending(dir.path(), "data", ".tiles");
    let text = std::fs::read_to_string(&tiles).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let long = format!("{} .", lines[2]);
    lines[2] = &long;
    std::fs::write(&tiles, lines.join("\n")).unwrap();
    let message = error(dir.path());
    assert!(
        message.contains(".tiles:3: row 1 has 13 tiles, the layer is 12 wide (columns 0..=11)"),
        "{message}"
    );
    // A tile id out of range: the row and the column, counted as tile positions are.
    let (dir, _) = unpacked_sample();
    let tiles = file_ending(dir.path(), "data", ".tiles");
    let text = std::fs::read_to_string(&tiles).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut row: Vec<String> = lines[6].split(' ').map(String::from).collect();
    row[1] = "300".into();
    lines[6] = row.join(" ");
    std::fs::write(&tiles, lines.join("\n")).unwrap();
    let message = error(dir.path());
    assert!(
        message.ends_with(".tiles:7: row 5, column 1: \"300\" is not a tile id (0..=255)"),
        "{message}"
    );
    // A missing data file leaves a gap in the numbering.
    let (dir, _) = unpacked_sample();
    std::fs::remove_file(file_ending(dir.path(), "data", "001.txt")).unwrap();
    let message = error(dir.path());
    assert!(message.contains("without gaps"), "{message}");
    // Unpack refuses a directory that is not empty.
    let (dir, original) = unpacked_sample();
    let message = twcodec_tools::mapdir::unpack(&original, dir.path())
        .unwrap_err()
        .to_string();
    assert!(message.contains("not empty"), "{message}");
}

/// Replaces `from` by `to` in the one file under `dir/sub` ending with `suffix`.
fn edit(dir: &std::path::Path, sub: &str, suffix: &str, from: &str, to: &str) {
    let path = file_ending(dir, sub, suffix);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains(from),
        "{}: no {from:?} in\n{text}",
        path.display()
    );
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn quads_and_layers_added_and_deleted_in_the_directory() {
    let original = twcodec_testkit::sample::map().unwrap();
    // A quad added: a copy of the first one, one more in the layer's count.
    let (dir, _) = unpacked_sample();
    let quads = file_ending(dir.path(), "data", ".quads.toml");
    let text = std::fs::read_to_string(&quads).unwrap();
    let first = text.split("[[quad]]").nth(1).unwrap();
    std::fs::write(&quads, format!("{text}\n[[quad]]{first}")).unwrap();
    edit(
        dir.path(),
        "groups",
        "quads-Quads.toml",
        "num_quads = 2",
        "num_quads = 3",
    );
    let map = pack_strict(dir.path());
    let layer =
        |map: &twcodec::Map, name: &str| map.layers().iter().find(|l| l.name() == name).cloned();
    let count = |map: &twcodec::Map| match layer(map, "Quads").unwrap().content() {
        twcodec::map::LayerContent::Quads(q) => q.quads().unwrap().to_vec(),
        _ => unreachable!(),
    };
    let (before, after) = (count(&original), count(&map));
    assert_eq!(after.len(), 3);
    assert_eq!(after[..2], before[..]);
    assert_eq!(after[2], before[0]);

    // A layer deleted: its file removed from its group's folder.
    let (dir, _) = unpacked_sample();
    std::fs::remove_file(file_ending(dir.path(), "groups", "tune-Tune.toml")).unwrap();
    let map = pack_strict(dir.path());
    assert!(layer(&map, "Tune").is_none());
    assert_eq!(map.layers().len(), original.layers().len() - 1);
    let names = |map: &twcodec::Map| map.layers().iter().map(|l| l.name()).collect::<Vec<_>>();
    let mut expected = names(&original);
    expected.retain(|n| n != "Tune");
    assert_eq!(names(&map), expected);

    // A reference to an image that is not there: the file and the line, nothing built.
    let (dir, _) = unpacked_sample();
    edit(
        dir.path(),
        "groups",
        "tiles-Ground.toml",
        "image = 0",
        "image = 9",
    );
    let message = twcodec_tools::mapdir::pack(dir.path())
        .unwrap_err()
        .to_string();
    assert!(message.contains("tiles-Ground.toml:"), "{message}");
    assert!(message.contains("image"), "{message}");

    // A layer moved to another group: its file moved to that group's folder.
    let (dir, _) = unpacked_sample();
    let ground = file_ending(dir.path(), "groups", "tiles-Ground.toml");
    let background = file_ending(dir.path(), "groups", "00-Background/group.toml");
    let moved = background.with_file_name(ground.file_name().unwrap());
    std::fs::rename(&ground, &moved).unwrap();
    let map = pack_strict(dir.path());
    let in_group = |map: &twcodec::Map, group: usize| -> Vec<String> {
        let group = map.refs::<Group>().nth(group).unwrap();
        (map.get(group).unwrap().layers(map))
            .map(|l| map.get(l).unwrap().name())
            .collect()
    };
    assert_eq!(in_group(&map, 0), ["Quads", "Sounds", "Ground"]);
    assert_eq!(
        in_group(&map, 1),
        ["Game", "Front", "Tele", "Speedup", "Switch", "Tune"]
    );
}

#[test]
fn diff_reads_directories() {
    let (dir, _) = unpacked_sample();
    let original = twcodec_testkit::sample::map().unwrap();
    let (_, game) = original.game_layer().unwrap();
    let tiles = dir
        .path()
        .join(format!("data/{:03}.tiles", game.item().data));
    let text = std::fs::read_to_string(&tiles).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut row: Vec<String> = lines[2].split(' ').map(String::from).collect();
    row[4] = "2".into();
    lines[2] = row.join(" ");
    std::fs::write(&tiles, lines.join("\n") + "\n").unwrap();
    let packed = twcodec_tools::mapdir::load(dir.path()).unwrap();
    let changes = twcodec_tools::diff::diff(&original, &packed);
    let mut text = Vec::new();
    changes.write_text(&mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert_eq!(
        text, "group #1 \"Game\" / layer #2 \"Game\":\n  x 4, y 1: 0 -> 2\n",
        "{text}"
    );
    // The CLI takes a directory on either side.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_twcodec"))
        .arg("diff")
        .arg(dir.path())
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
}

/// The whole directory of the sample, text files in full, for review.
#[test]
fn the_unpacked_sample_reads_well() {
    let (dir, _) = unpacked_sample();
    let files = files_under(dir.path());
    let mut listing = String::new();
    for path in &files {
        let name = path.strip_prefix(dir.path()).unwrap().to_string_lossy();
        let bytes = std::fs::read(path).unwrap();
        let binary = [".png", ".opus", ".zz", ".bin"]
            .iter()
            .any(|ext| name.ends_with(ext));
        if binary {
            listing.push_str(&format!("== {name} ({} bytes)\n", bytes.len()));
        } else {
            let text = String::from_utf8(bytes).unwrap();
            let end = if text.ends_with('\n') {
                ""
            } else {
                "\n(no line break at the end)\n"
            };
            listing.push_str(&format!("== {name}\n{text}{end}"));
        }
    }
    // References say what they point at.
    assert!(listing.contains("image = 0 # image #0 \"grass_main\""));
    assert!(listing.contains("color_envelope = 2 # envelope #2 \"pulse\""));
    assert!(listing.contains("settings = 4 # data/004.settings"));
    common::insta_settings().bind(|| insta::assert_snapshot!("mapdir_sample", listing));
}

#[test]
fn without_the_streams_the_content_is_the_same() {
    let (dir, original) = unpacked_sample();
    std::fs::remove_dir_all(dir.path().join(".twcodec/streams")).unwrap();
    let packed = twcodec_tools::mapdir::pack(dir.path()).unwrap();
    common::assert_same_content(
        &Datafile::parse(&original).unwrap(),
        &Datafile::parse(&packed).unwrap(),
    );
}

#[test]
fn envelopes_hold_their_points() {
    let original = twcodec_testkit::sample::map().unwrap();
    let (dir, _) = unpacked_sample();
    // No file for the shared points items: each envelope lists its own.
    assert!(files_under(dir.path())
        .iter()
        .all(|p| !p.to_string_lossy().contains("envpoints")));
    // A point added to the first envelope: the later envelopes keep their points.
    let volume = file_ending(dir.path(), "items", "envelope-00-volume.toml");
    let text = std::fs::read_to_string(&volume).unwrap();
    std::fs::write(
        &volume,
        format!("{text}\n[[points]]\ntime = 2000\ncurve_type = 1\nvalues = [512, 0, 0, 0]\n"),
    )
    .unwrap();
    let map = pack_strict(dir.path());
    let points = |map: &twcodec::Map, i: usize| map.envelopes()[i].points(map).to_vec();
    assert_eq!(points(&map, 0).len(), points(&original, 0).len() + 1);
    assert_eq!(points(&map, 0).last().unwrap().time, 2000);
    assert_eq!(points(&map, 1), points(&original, 1));
    assert_eq!(points(&map, 2), points(&original, 2));
    // The bezier tangents stay with their points.
    let bezier = |map: &twcodec::Map, i: usize| map.envelopes()[i].bezier(map).unwrap().to_vec();
    assert_eq!(bezier(&map, 2), bezier(&original, 2));
    // The new point got zero tangents, as the editor gives them.
    let tangents = bezier(&map, 0);
    assert_eq!(tangents.len(), points(&map, 0).len());
    assert_eq!(*tangents.last().unwrap(), Default::default());
}

#[test]
fn new_items_added_in_the_directory() {
    let original = twcodec_testkit::sample::map().unwrap();
    let (dir, _) = unpacked_sample();
    let path = dir.path();
    let copy_as = |from: &std::path::Path, to: &std::path::Path, edits: &[(&str, &str)]| {
        // A copy is a new item: without the `id` line of the item it copies.
        let text = std::fs::read_to_string(from).unwrap();
        let mut text: String = (text.lines())
            .filter(|l| !l.starts_with("id = "))
            .map(|l| format!("{l}\n"))
            .collect();
        for (old, new) in edits {
            assert!(text.contains(old), "no {old:?} in {}", from.display());
            text = text.replacen(old, new, 1);
        }
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, text).unwrap();
    };
    // A new image: its item file under items/, its name and pixels as new data files.
    let checker = file_ending(path, "items", "image-01-checker.toml");
    let picture = twcodec_tools::assets::Picture {
        width: 16,
        height: 16,
        rgba: (0..16 * 16 * 4).map(|i| (i % 251) as u8).collect(),
    };
    std::fs::write(path.join("data/024.txt"), "stripes").unwrap();
    std::fs::write(path.join("data/025.png"), picture.to_png().unwrap()).unwrap();
    let old_image = std::fs::read_to_string(&checker).unwrap();
    let name_line = old_image.lines().find(|l| l.starts_with("name =")).unwrap();
    let data_line = old_image.lines().find(|l| l.starts_with("data =")).unwrap();
    let width_line = old_image
        .lines()
        .find(|l| l.starts_with("width ="))
        .unwrap();
    let height_line = old_image
        .lines()
        .find(|l| l.starts_with("height ="))
        .unwrap();
    copy_as(
        &checker,
        &path.join("items/image-02-stripes.toml"),
        &[
            (name_line, "name = 24"),
            (data_line, "data = 25"),
            (width_line, "width = 16"),
            (height_line, "height = 16"),
        ],
    );
    // A new envelope with its points.
    std::fs::write(
        path.join("items/envelope-03-blink.toml"),
        "kind = \"envelope\"\nversion = 2\nchannels = 4\nname = \"blink\"\nsynchronized = 0\n\n\
         [[points]]\ntime = 0\ncurve_type = 0\nvalues = [1024, 1024, 1024, 1024]\n\n\
         [[points]]\ntime = 500\ncurve_type = 0\nvalues = [1024, 1024, 1024, 0]\n",
    )
    .unwrap();
    // A new tile layer in the game group, after Ground, using both: a copy of Ground's tiles.
    let ground = file_ending(path, "groups", "tiles-Ground.toml");
    let ground_data: usize = std::fs::read_to_string(&ground)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("data = "))
        .and_then(|l| l.split(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    std::fs::copy(
        path.join(format!("data/{ground_data:03}.tiles")),
        path.join("data/026.tiles"),
    )
    .unwrap();
    copy_as(
        &ground,
        &ground.with_file_name("003a-tiles-Stripes.toml"),
        &[
            ("image = 0", "image = 2"),
            ("color_envelope = 2", "color_envelope = 3"),
            (&format!("data = {ground_data}"), "data = 26"),
            ("name = \"Ground\"", "name = \"Stripes\""),
        ],
    );
    // A new group, last, holding a copy of the quads layer with its own data.
    let background = file_ending(path, "groups", "00-Background/group.toml");
    copy_as(&background, &path.join("groups/02-Overlay/group.toml"), &[]);
    let quads_layer = file_ending(path, "groups", "quads-Quads.toml");
    copy_as(
        &file_ending(path, "data", ".quads.toml"),
        &path.join("data/027.quads.toml"),
        &[],
    );
    copy_as(
        &quads_layer,
        &path.join("groups/02-Overlay/009-quads-Overlay.toml"),
        &[
            ("data = 10", "data = 27"),
            ("name = \"Quads\"", "name = \"Overlay\""),
        ],
    );

    let map = pack_strict(path);
    // The image, last, with its name and pixels.
    assert_eq!(map.images().len(), original.images().len() + 1);
    let image = map.images().last().unwrap();
    assert_eq!(image.name(&map).unwrap(), "stripes");
    assert_eq!(image.rgba8(&map).unwrap().bytes, picture.rgba);
    // The envelope, last, with its points.
    assert_eq!(map.envelopes().len(), original.envelopes().len() + 1);
    let blink = map.envelopes().last().unwrap();
    assert_eq!(blink.name(), "blink");
    let times: Vec<i32> = blink.points(&map).iter().map(|p| p.time).collect();
    assert_eq!(times, [0, 500]);
    // The earlier envelopes keep their points.
    for (a, b) in original.envelopes().iter().zip(map.envelopes()) {
        assert_eq!(a.points(&original), b.points(&map));
    }
    // The layer, right after Ground, with the new image and envelope and Ground's tiles.
    let names: Vec<String> = map.layers().iter().map(|l| l.name()).collect();
    let ground_at = names.iter().position(|n| n == "Ground").unwrap();
    assert_eq!(names[ground_at + 1], "Stripes");
    assert_eq!(names.last().unwrap(), "Overlay");
    let layer = |map: &twcodec::Map, name: &str| {
        map.layers()
            .iter()
            .find(|l| l.name() == name)
            .cloned()
            .unwrap()
    };
    let (stripes, old_ground) = (layer(&map, "Stripes"), layer(&original, "Ground"));
    let (twcodec::map::LayerContent::Tiles(new), twcodec::map::LayerContent::Tiles(old)) =
        (stripes.content(), old_ground.content())
    else {
        panic!("not tile layers");
    };
    assert_eq!(new.item().image, i32::try_from(image_index(&map)).unwrap());
    assert_eq!(new.item().color_envelope, 3);
    assert_eq!(
        new.grid().unwrap().tiles().to_vec(),
        old.grid().unwrap().tiles().to_vec()
    );
    // The group, last, holding its layer.
    assert_eq!(map.groups().len(), original.groups().len() + 1);
    let last = map.refs::<Group>().last().unwrap();
    let in_last: Vec<String> = (map.get(last).unwrap().layers(&map))
        .map(|l| map.get(l).unwrap().name())
        .collect();
    assert_eq!(in_last, ["Overlay"]);
    // Ids follow the highest of each type, and a diff shows exactly the additions.
    let ids: Vec<u16> = map.layers().iter().map(|l| l.id()).collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "layer ids {ids:?}");

    // Errors: a new layer outside the group folders, a new image inside one.
    let (dir, _) = unpacked_sample();
    let ground = file_ending(dir.path(), "groups", "tiles-Ground.toml");
    copy_as(&ground, &dir.path().join("items/layer-100-Lost.toml"), &[]);
    let message = pack_error(dir.path());
    assert!(
        message.contains("layer-100-Lost.toml: groups and layers"),
        "{message}"
    );
    let (dir, _) = unpacked_sample();
    let checker = file_ending(dir.path(), "items", "image-01-checker.toml");
    let ground = file_ending(dir.path(), "groups", "tiles-Ground.toml");
    copy_as(&checker, &ground.with_file_name("zz image.toml"), &[]);
    let message = pack_error(dir.path());
    assert!(
        message.contains("kind = \"image\", but a group folder holds only"),
        "{message}"
    );
    // A new file without a kind.
    let (dir, _) = unpacked_sample();
    std::fs::write(dir.path().join("items/what-100.toml"), "version = 1\n").unwrap();
    let message = pack_error(dir.path());
    assert!(
        message.contains("what-100.toml: an item file says what it is"),
        "{message}"
    );
}

/// The index of the last image of `map`.
fn image_index(map: &twcodec::Map) -> usize {
    map.images().len() - 1
}

/// The error packing `dir` gives.
fn pack_error(dir: &std::path::Path) -> String {
    match twcodec_tools::mapdir::pack(dir) {
        Ok(bytes) => panic!("packed {} bytes", bytes.len()),
        Err(e) => e.to_string(),
    }
}

/// A map of `groups` groups of `per_group` one-tile layers each (a data item each), `images`
/// external images (a name each) and `envelopes` envelopes of one point each, every item
/// named after its number.
fn wide_map(groups: usize, per_group: usize, images: usize, envelopes: usize) -> Vec<u8> {
    use common::name;
    let mut w = DatafileWriter::new();
    w.add_item(0, 0, vec![1]);
    for i in 0..images {
        let data = w.add_data(format!("image {i}\0").into_bytes()) as i32;
        w.add_item(2, i as u16, vec![1, 1024, 1024, 1, data, -1]);
    }
    let mut points = Vec::new();
    for i in 0..envelopes {
        let mut item = vec![2, 1, i as i32, 1];
        item.extend(name::<8>(&format!("env {i}")));
        item.push(0);
        w.add_item(3, i as u16, item);
        points.extend([0, 1, i as i32 * 1024, 0, 0, 0]);
    }
    if envelopes > 0 {
        w.add_item(6, 0, points);
    }
    for g in 0..groups {
        let start = (g * per_group) as i32;
        let mut item = vec![3, 0, 0, 100, 100, start, per_group as i32, 0, 0, 0, 0, 0];
        item.extend(name::<3>(&format!("g{g}")));
        w.add_item(4, g as u16, item);
    }
    for l in 0..groups * per_group {
        let tile = [(l % 255) as u8 + 1, 0, 0, 0];
        let data = w.add_data(tile.to_vec()) as i32;
        let envelope = if envelopes > 0 {
            (l % envelopes) as i32
        } else {
            -1
        };
        let image = if images > 0 { (l % images) as i32 } else { -1 };
        let mut item = vec![
            0, 2, 0, 3, 1, 1, 0, 255, 255, 255, 255, envelope, 0, image, data,
        ];
        item.extend(name::<3>(&format!("l{l}")));
        w.add_item(5, l as u16, item);
    }
    w.to_vec().unwrap()
}

#[test]
fn order_never_depends_on_how_names_sort() {
    // Past every width a number in a file name has: 2-digit groups, 3-digit layers, images
    // and envelopes, 3-digit data files; in one folder and across many.
    let shapes = [
        (100, 1, 100, 100),
        (1000, 1, 1000, 1000),
        (3, 1100, 10, 10),
        (10_000, 1, 1000, 1000),
    ];
    for (groups, per_group, images, envelopes) in shapes {
        let original = wide_map(groups, per_group, images, envelopes);
        let dir = tempfile::tempdir().unwrap();
        twcodec_tools::mapdir::unpack(&original, dir.path()).unwrap();
        let packed = twcodec_tools::mapdir::pack(dir.path()).unwrap();
        assert!(
            packed == original,
            "{groups} groups of {per_group} layers, {images} images, {envelopes} envelopes"
        );
        // Renamed without their leading zeros, the folders sort otherwise as text, and the
        // order stays.
        if groups == 100 {
            for entry in std::fs::read_dir(dir.path().join("groups")).unwrap() {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                let trimmed = name.trim_start_matches('0');
                let trimmed = if trimmed.starts_with('-') {
                    format!("0{trimmed}")
                } else {
                    trimmed.to_string()
                };
                std::fs::rename(&path, path.with_file_name(trimmed)).unwrap();
            }
            assert!(twcodec_tools::mapdir::pack(dir.path()).unwrap() == original);
        }
    }
}

/// The corpus map `name` unpacked into a new directory.
fn unpacked_corpus(name: &str) -> Option<(tempfile::TempDir, Vec<u8>)> {
    let original = common::corpus_map(name)?;
    let dir = tempfile::tempdir().unwrap();
    twcodec_tools::mapdir::unpack(&original, dir.path()).unwrap();
    Some((dir, original))
}

/// Each auto-mapper of `map` as (group, layer in group, the layer's global index).
fn automapped(map: &twcodec::Map) -> Vec<(i32, i32, Option<usize>)> {
    (map.automappers().iter())
        .map(|a| {
            (
                a.item().group,
                a.item().layer,
                a.layer(map).map(|l| l.index()),
            )
        })
        .collect()
}

#[test]
fn automappers_follow_their_layers() {
    let Some((dir, original)) = unpacked_corpus("tinycave_1094b.map") else {
        return;
    };
    let map = twcodec::Map::parse(&original).unwrap();
    // Group 1 "Game" holds tiles #1, game #2, tiles #3; the auto-mappers configure #1 and #3.
    assert_eq!(automapped(&map), [(1, 0, Some(1)), (1, 2, Some(3))]);
    // The quads layer of group 0 moved into the game group, where its number sorts it first:
    // the layers the auto-mappers configure are one further down their group.
    let quads = file_ending(dir.path(), "groups", "000-quads.toml");
    let game = file_ending(dir.path(), "groups", "01-Game/group.toml");
    std::fs::rename(&quads, game.with_file_name("000-quads.toml")).unwrap();
    let moved = pack_strict(dir.path());
    assert_eq!(automapped(&moved), [(1, 1, Some(1)), (1, 3, Some(3))]);
    let kinds = |map: &twcodec::Map| -> Vec<&str> {
        let configured = (map.automappers().iter()).filter_map(|a| a.layer(map));
        configured
            .map(|l| map.get(l).unwrap().kind_name())
            .collect()
    };
    assert_eq!(kinds(&moved), ["tiles", "tiles"]);
    // A configured layer moved to another group takes its configuration along.
    let (dir, _) = unpacked_corpus("tinycave_1094b.map").unwrap();
    let last = file_ending(dir.path(), "groups", "003-tiles.toml");
    let background = file_ending(dir.path(), "groups", "00/group.toml");
    std::fs::rename(&last, background.with_file_name("003-tiles.toml")).unwrap();
    let moved = pack_strict(dir.path());
    // Now group 0 holds quads #0 and tiles #1; the game group tiles #2, game #3.
    assert_eq!(automapped(&moved), [(1, 0, Some(2)), (0, 1, Some(1))]);
    // A configured layer deleted: its configuration goes, and pack says so.
    let (dir, _) = unpacked_corpus("tinycave_1094b.map").unwrap();
    std::fs::remove_file(file_ending(dir.path(), "groups", "001-tiles.toml")).unwrap();
    let packed = twcodec_tools::mapdir::pack_with_notes(dir.path()).unwrap();
    let map = twcodec::Map::parse(&packed.bytes).unwrap();
    assert_eq!(automapped(&map), [(1, 1, Some(2))]);
    let notes = packed.notes.join("\n");
    assert!(
        notes.contains("items/automapper-00.toml: configures layer #0 of group #1, which was deleted: left out"),
        "{notes}"
    );
    assert!(notes.contains("no item names it"), "{notes}");
}

#[test]
fn references_follow_reordered_and_deleted_items() {
    let original = twcodec_testkit::sample::map().unwrap();
    let image_of = |map: &twcodec::Map, layer: &str| -> Option<String> {
        let layer = map.layers().iter().find(|l| l.name() == layer).unwrap();
        let image = layer.image(map).get()?;
        Some(map.get(image).unwrap().name(map).unwrap().to_string())
    };
    assert_eq!(image_of(&original, "Ground").as_deref(), Some("grass_main"));
    // The checker image renamed to sort first: it is image #0 now, and Ground still draws
    // with grass_main, now image #1.
    let (dir, _) = unpacked_sample();
    let checker = file_ending(dir.path(), "items", "image-01-checker.toml");
    std::fs::rename(&checker, checker.with_file_name("image-000-checker.toml")).unwrap();
    let map = pack_strict(dir.path());
    let names: Vec<String> = (map.images().iter())
        .map(|i| i.name(&map).unwrap().to_string())
        .collect();
    assert_eq!(names, ["checker", "grass_main"]);
    assert_eq!(image_of(&map, "Ground").as_deref(), Some("grass_main"));
    // grass_main deleted: Ground draws none, and pack says so.
    let (dir, _) = unpacked_sample();
    std::fs::remove_file(file_ending(dir.path(), "items", "image-00-grass_main.toml")).unwrap();
    let packed = twcodec_tools::mapdir::pack_with_notes(dir.path()).unwrap();
    let map = twcodec::Map::parse(&packed.bytes).unwrap();
    assert_eq!(map.images().len(), 1);
    assert_eq!(image_of(&map, "Ground"), None);
    assert!(
        (packed.notes.iter()).any(|n| n.contains("tiles-Ground.toml: image #0 was deleted (items/image-00-grass_main.toml): the reference is none now")),
        "{:?}",
        packed.notes
    );
    // The first envelope deleted: every later reference moves down with its envelope.
    let (dir, _) = unpacked_sample();
    std::fs::remove_file(file_ending(dir.path(), "items", "envelope-00-volume.toml")).unwrap();
    let map = pack_strict(dir.path());
    let envelope_names = |map: &twcodec::Map| -> Vec<String> {
        let ground = map.layers().iter().find(|l| l.name() == "Ground").unwrap();
        let twcodec::map::LayerContent::Tiles(tiles) = ground.content() else {
            panic!("Ground is a tiles layer");
        };
        let envelope = tiles.color_envelope(map).get();
        envelope
            .map(|e| map.get(e).unwrap().name())
            .into_iter()
            .collect()
    };
    assert_eq!(envelope_names(&original), ["pulse"]);
    assert_eq!(envelope_names(&map), ["pulse"]);
    // A copy of an item file with its id is refused, naming both files.
    let (dir, _) = unpacked_sample();
    let ground = file_ending(dir.path(), "groups", "tiles-Ground.toml");
    std::fs::copy(&ground, ground.with_file_name("003a-tiles-Copy.toml")).unwrap();
    let message = pack_error(dir.path());
    assert!(
        message.contains(
            "003a-tiles-Copy.toml: the same item as groups/01-Game/003-tiles-Ground.toml"
        ),
        "{message}"
    );
}

#[test]
fn group_extensions_follow_their_groups() {
    let Some((dir, original)) = unpacked_corpus("ddnet_theme_winter_night.map") else {
        return;
    };
    // The parallax zoom of each group, as DDNet reads it (one extension item per group).
    let zooms = |bytes: &[u8]| -> Vec<(String, i32)> {
        let map = twcodec::Map::parse(bytes).unwrap();
        let datafile = Datafile::parse(bytes).unwrap();
        let ex: Vec<i32> = (0..datafile.items().len())
            .filter_map(|i| {
                match twcodec::items::decode_item(
                    &datafile,
                    i,
                    twcodec::items::decode_context(&datafile),
                ) {
                    Ok(twcodec::schema::map::MapItem::GroupEx(g)) => Some(g.parallax_zoom),
                    _ => None,
                }
            })
            .collect();
        assert_eq!(ex.len(), map.groups().len());
        map.groups().iter().map(|g| g.name()).zip(ex).collect()
    };
    let before = zooms(&original);
    // The first group's folder renamed to sort last, the second deleted, a new one added.
    let groups = dir.path().join("groups");
    let mut folders: Vec<String> = std::fs::read_dir(&groups)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    std::fs::rename(groups.join(&folders[0]), groups.join("99-first")).unwrap();
    std::fs::remove_dir_all(groups.join(&folders[1])).unwrap();
    std::fs::create_dir(groups.join("50-added")).unwrap();
    std::fs::write(
        groups.join("50-added/group.toml"),
        "kind = \"group\"\nversion = 3\nname = \"added\"\n[offset]\nx = 0\ny = 0\n\
         [parallax]\nx = 40\ny = 70\n[clip]\nenabled = 0\nx = 0\ny = 0\nwidth = 0\nheight = 0\n",
    )
    .unwrap();
    let after = zooms(&twcodec_tools::mapdir::pack(dir.path()).unwrap());
    let mut expected = before[2..].to_vec();
    expected.push(("added".into(), 70));
    expected.push(before[0].clone());
    assert_eq!(after, expected);
}

#[test]
fn directories_of_the_first_form_still_pack() {
    // The first form: no `form` line, no `id` lines; files found by their paths.
    let (dir, original) = unpacked_sample();
    let layout = dir.path().join(".twcodec/layout.toml");
    let text = std::fs::read_to_string(&layout).unwrap();
    std::fs::write(&layout, text.replace("form = 2\n", "")).unwrap();
    for path in files_under(dir.path()) {
        if path.extension().is_some_and(|e| e == "toml") && !path.ends_with("layout.toml") {
            let text = std::fs::read_to_string(&path).unwrap();
            let kept: String = (text.lines())
                .filter(|l| !l.starts_with("id = "))
                .map(|l| format!("{l}\n"))
                .collect();
            std::fs::write(&path, kept).unwrap();
        }
    }
    assert!(twcodec_tools::mapdir::pack(dir.path()).unwrap() == original);
    // A layer file moved to another folder is found by its name there.
    let ground = file_ending(dir.path(), "groups", "tiles-Ground.toml");
    let background = file_ending(dir.path(), "groups", "00-Background/group.toml");
    std::fs::rename(&ground, background.with_file_name("003-tiles-Ground.toml")).unwrap();
    let map = pack_strict(dir.path());
    let group = map.refs::<Group>().next().unwrap();
    let names: Vec<String> = (map.get(group).unwrap().layers(&map))
        .map(|l| map.get(l).unwrap().name())
        .collect();
    assert_eq!(names, ["Quads", "Sounds", "Ground"]);
    // The auto-mapper of Ground followed it.
    assert_eq!(automapped(&map), [(0, 2, Some(2))]);
}
