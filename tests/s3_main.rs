//! `sitrep-s3`: the tests' S3-compatible server (s3s-fs, tests/s3_server.rs) as a process, for
//! `make cluster`: serves a folder until Ctrl-C.
//! usage: sitrep-s3 <folder> <bucket> <address>

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, folder, bucket, address] = args.as_slice() else {
        eprintln!("usage: sitrep-s3 <folder> <bucket> <address>");
        std::process::exit(2);
    };
    let server = sitrep_tests::s3_server::S3Server::start_on(std::path::Path::new(folder), bucket, address).await?;
    eprintln!("sitrep-s3: s3://{bucket}/ at {} (folder {folder})", server.endpoint);
    tokio::signal::ctrl_c().await?;
    Ok(())
}
