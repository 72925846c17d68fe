//! The `engine.toml` shipped at the top of the repository parses, with the documented defaults.

use std::path::Path;

#[test]
fn the_shipped_file_parses() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(retro_engine::config::FILE_NAME);
    let text = std::fs::read_to_string(&path).expect("engine.toml in the repository");
    let c = retro_engine::config::Config::parse(&text, &path).expect("valid");
    assert_eq!(c.table_path, retro_engine::config::default_table_path());
    assert_eq!(c.log_level, retro_engine::config::LogLevel::Warn);
    assert_eq!((c.hash, c.threads, c.move_overhead), (16, 1, 30));
    assert!(c.build_missing_tables);
    assert_eq!(c.log_file, None);
    assert_eq!(c.games_dir, None);
    assert_eq!(c.syzygy_path, None);
    assert_eq!(c.syzygy_probe_limit, 7);
    assert!(c.syzygy_50_move_rule);
}
