//! The `students` table: the roster's rows.

use super::Db;
use crate::course::Course;
use crate::error::Fault;

/// Makes the students table the roster's: new students added, names and emails updated.
/// Students no longer on the roster keep their rows (and their submissions).
pub(crate) async fn sync_roster(pool: &Db, course: &Course) -> Result<(), Fault> {
    let mut tx = pool.begin().await?;
    for student in &course.roster {
        sqlx::query(
            "INSERT INTO students (id, name, email) VALUES ($1, $2, $3)
             ON CONFLICT(id) DO UPDATE SET name = excluded.name, email = excluded.email",
        )
        .bind(&student.id)
        .bind(&student.name)
        .bind(&student.email)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Whether `id` is a student of the course (the roster's, or one the LMS added).
pub(crate) async fn exists(pool: &Db, id: &str) -> Result<bool, Fault> {
    let row = sqlx::query("SELECT 1 FROM students WHERE id = $1")
        .bind(id)
        .fetch_optional(pool)
        .await?;
    Ok(row.is_some())
}
