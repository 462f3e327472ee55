//! A map directory someone else prepared (a pull request that CI packs) and maps someone else
//! made: `pack` and `diff` read nothing outside the directory, nothing but regular files, and
//! nothing without a bound; `unpack` allocates in proportion to the map.

mod common;

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use twcodec::{Datafile, DatafileWriter};

/// The sample unpacked into a new directory.
fn unpacked_sample() -> (tempfile::TempDir, Vec<u8>) {
    let original = twcodec_testkit::sample::datafile();
    let dir = tempfile::tempdir().unwrap();
    twcodec_tools::mapdir::unpack(&original, dir.path()).unwrap();
    (dir, original)
}

/// The first file under `dir` (any depth, by path) whose path ends with `suffix`.
fn file_ending(dir: &Path, suffix: &str) -> PathBuf {
    let mut stack = vec![dir.to_path_buf()];
    let mut files = Vec::new();
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
        .into_iter()
        .find(|p| p.to_string_lossy().ends_with(suffix))
        .unwrap_or_else(|| panic!("no file ending {suffix}"))
}

/// `pack(dir)`'s error, run on a thread that must end within a minute (nothing may block or
/// run on).
fn pack_error(dir: &Path) -> String {
    let dir = dir.to_path_buf();
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(twcodec_tools::mapdir::pack(&dir).map(|b| b.len()));
    });
    match receive.recv_timeout(Duration::from_secs(60)) {
        Ok(Ok(len)) => panic!("packed {len} bytes"),
        Ok(Err(e)) => e.to_string(),
        Err(_) => panic!("pack did not end within a minute"),
    }
}

#[cfg(unix)]
fn link(target: &Path, at: &Path) {
    if at.exists() {
        if at.is_dir() {
            std::fs::remove_dir_all(at).unwrap();
        } else {
            std::fs::remove_file(at).unwrap();
        }
    }
    std::os::unix::fs::symlink(target, at).unwrap();
}

#[cfg(unix)]
#[test]
fn links_inside_the_directory_are_refused() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret");
    std::fs::write(&secret, "the secret\n").unwrap();
    type Place<'a> = &'a dyn Fn(&Path) -> PathBuf;
    let cases: [(&str, Place); 7] = [
        ("a data file", &|d| file_ending(d, "data/001.txt")),
        ("an item file", &|d| {
            file_ending(d, "items/image-00-grass_main.toml")
        }),
        ("a layer file", &|d| file_ending(d, "tiles-Ground.toml")),
        ("the data folder", &|d| d.join("data")),
        ("a group folder", &|d| d.join("groups/00-Background")),
        ("the layout", &|d| d.join(".twcodec/layout.toml")),
        ("the streams folder", &|d| d.join(".twcodec/streams")),
    ];
    for (what, at) in cases {
        let (dir, _) = unpacked_sample();
        let at = at(dir.path());
        let target = if at.is_dir() {
            outside.path().to_path_buf()
        } else {
            secret.clone()
        };
        link(&target, &at);
        let message = pack_error(dir.path());
        assert!(
            message.contains(&at.display().to_string()) && message.contains("a symbolic link"),
            "{what}: {message}"
        );
        // diff packs a directory in memory: the same.
        let error = twcodec_tools::mapdir::load(dir.path())
            .unwrap_err()
            .to_string();
        assert!(error.contains("a symbolic link"), "{what}: {error}");
    }
    // A stream file linked elsewhere, too.
    let (dir, _) = unpacked_sample();
    let stream = std::fs::read_dir(dir.path().join(".twcodec/streams"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    link(&secret, &stream);
    let message = pack_error(dir.path());
    assert!(message.contains("a symbolic link"), "{message}");
}

#[cfg(unix)]
#[test]
fn fifos_and_devices_are_refused_at_once() {
    let made = |path: &Path| {
        let _ = std::fs::remove_file(path);
        std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .is_ok_and(|s| s.success())
    };
    for at in [
        "data/001.txt",
        "items/version-00.toml",
        ".twcodec/layout.toml",
    ] {
        let (dir, _) = unpacked_sample();
        let path = dir.path().join(at);
        if !made(&path) {
            eprintln!("skipped: no mkfifo");
            return;
        }
        let message = pack_error(dir.path());
        assert!(
            message.contains("it is a FIFO, not a regular file"),
            "{at}: {message}"
        );
    }
    // A map file that is a device: refused before anything is read.
    let error = twcodec::Map::open("/dev/zero").unwrap_err().to_string();
    assert_eq!(
        error,
        "cannot read /dev/zero: it is a character device, not a regular file"
    );
}

#[test]
fn files_past_the_limits_are_refused_before_they_are_read() {
    let (dir, _) = unpacked_sample();
    // A data file past the largest data item: refused by its size, naming the limit.
    let data = file_ending(dir.path(), "data/001.txt");
    let file = std::fs::File::create(&data).unwrap();
    file.set_len(300 << 20).unwrap();
    let message = pack_error(dir.path());
    assert!(
        message.contains("001.txt is more than the 268435456 bytes Limits::max_data_size allows"),
        "{message}"
    );
    // A tiles file whose header asks for more than a layer may have: refused before anything
    // is allocated for it.
    let (dir, _) = unpacked_sample();
    let tiles = file_ending(dir.path(), "data/012.tiles");
    std::fs::write(&tiles, "# 100000x100000 tiles\n").unwrap();
    let message = pack_error(dir.path());
    assert!(
        message.contains("is too large (Limits::max_tiles"),
        "{message}"
    );
}

#[test]
fn a_stream_named_by_many_entries_is_inflated_once() {
    // 200 layout entries name one stream of 256 MiB of zeros (a 261 KB file): reading the
    // layout inflates it once (and at most Limits::max_total_data in all), not 200 times.
    let (dir, _) = unpacked_sample();
    let zeros = vec![0u8; 256 << 20];
    let deflated = {
        let mut w = DatafileWriter::new();
        w.add_data(zeros.clone());
        let bytes = w.to_vec().unwrap();
        Datafile::parse(&bytes).unwrap().stored_data(0).unwrap()
    };
    use sha2::Digest;
    let hex = |b: &[u8]| -> String {
        sha2::Sha256::digest(b)
            .iter()
            .map(|x| format!("{x:02x}"))
            .collect()
    };
    let name = format!("{}.zz", hex(&deflated));
    std::fs::write(dir.path().join(".twcodec/streams").join(&name), &deflated).unwrap();
    let layout_path = dir.path().join(".twcodec/layout.toml");
    let mut layout: toml::Table =
        toml::from_str(&std::fs::read_to_string(&layout_path).unwrap()).unwrap();
    let entry = {
        let mut e = toml::Table::new();
        e.insert("content".into(), hex(&zeros).into());
        e.insert("size".into(), toml::Value::Integer(256 << 20));
        e.insert("stream".into(), name.clone().into());
        toml::Value::Table(e)
    };
    let data = layout.get_mut("data").unwrap().as_array_mut().unwrap();
    data.extend(std::iter::repeat_n(entry, 200));
    std::fs::write(&layout_path, toml::to_string(&layout).unwrap()).unwrap();
    let (send, receive) = mpsc::channel();
    let path = dir.path().to_path_buf();
    std::thread::spawn(move || {
        let loaded = twcodec_tools::mapdir::Streams::load(&path).map(|s| {
            (s.layout().data.iter())
                .filter(|e| e.stream.as_deref() == Some(name.as_str()))
                .count()
        });
        let _ = send.send(loaded);
    });
    let reused = receive
        .recv_timeout(Duration::from_secs(60))
        .expect("the layout loads within a minute")
        .unwrap();
    // Every entry naming the stream reuses it: one inflation told them all.
    assert_eq!(reused, 200);
}

#[test]
fn a_group_claiming_billions_of_layers_unpacks_without_allocating_them() {
    // A group whose layer count says 1.8 billion, over the one layer there is.
    let mut w = DatafileWriter::new();
    w.add_item(0, 0, vec![1]);
    let mut group = vec![3, 0, 0, 100, 100, 0, 1_800_000_000, 0, 0, 0, 0, 0];
    group.extend(common::name::<3>("Game"));
    w.add_item(4, 0, group);
    let tiles = w.add_data(vec![0u8; 4]) as i32;
    let mut layer = vec![0, 2, 0, 3, 1, 1, 1, 255, 255, 255, 255, -1, 0, -1, tiles];
    layer.extend(common::name::<3>("Game"));
    layer.extend([-1; 5]);
    w.add_item(5, 0, layer);
    let original = w.to_vec().unwrap();
    let dir = tempfile::tempdir().unwrap();
    twcodec_tools::mapdir::unpack(&original, dir.path()).unwrap();
    // The ranges do not cover the layers in order: groups and layers are items as stored.
    assert!(!dir.path().join("groups").exists());
    assert!(twcodec_tools::mapdir::pack(dir.path()).unwrap() == original);
}

#[test]
fn data_that_does_not_inflate_is_kept_as_stored() {
    // The sample with its first data item's stored stream cut short: resave keeps such
    // bytes, and so do unpack and pack.
    let sample = twcodec_testkit::sample::datafile();
    let datafile = Datafile::parse(&sample).unwrap();
    // Every data item as stored, the second one cut to half its stored bytes.
    let mut writer = DatafileWriter::new();
    for item in datafile.items() {
        writer.add_item(item.type_id(), item.id(), item.data.clone());
    }
    for index in 0..datafile.data_count() {
        let bytes = datafile.stored_data(index).unwrap();
        let size = datafile.data_size(index).unwrap();
        let bytes = match index {
            1 => bytes.slice(..bytes.len() / 2),
            _ => bytes,
        };
        writer.add_zlib_data(bytes, size);
    }
    let original = writer.to_vec().unwrap();
    assert!(Datafile::parse(&original).unwrap().data(1).is_err());
    let dir = tempfile::tempdir().unwrap();
    twcodec_tools::mapdir::unpack(&original, dir.path()).unwrap();
    assert!(dir.path().join("data/001.stored").is_file());
    assert!(twcodec_tools::mapdir::pack(dir.path()).unwrap() == original);
    // A .stored file the layout does not know is refused.
    std::fs::rename(
        dir.path().join("data/001.stored"),
        dir.path().join("data/001.bin"),
    )
    .unwrap();
    std::fs::copy(
        dir.path().join("data/002.txt"),
        dir.path().join("data/002.stored"),
    )
    .unwrap();
    std::fs::remove_file(dir.path().join("data/002.txt")).unwrap();
    let message = pack_error(dir.path());
    assert!(
        message.contains("002.stored: .stored files hold"),
        "{message}"
    );
}
